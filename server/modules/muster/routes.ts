import type { FastifyInstance } from 'fastify';
import { enumLabel } from '../../../domain/enums';
import { musterApi, musterSourceLabels, type MusterEvent, type MusterSubject } from '../../../domain/schemas/muster';
import { ok } from '../../core/errors';
import { answerInClear } from '../../core/personal-data';
import { route } from '../../core/route';
import { unitOfWorkRoute } from '../../core/unit-of-work';
import { afterCommit } from '../../core/transactions';
import { xlsxExports, type ExportSheetColumn } from '../../core/xlsx-export';
import { startPeriodic } from '../../jobs/periodic';
import { loadPassKeys } from '../passes';
import { boardOf, currentMuster, deliverMusterSms, endMuster, isRunning, markSafe, musterPage, reportOf, startMuster, subjectsOf } from './service';

/**
 * 应急清点 (docs/muster.md): start, the board, the list a marshal marks
 * from (kept on the phone for offline use), marks, the end, past musters
 * and the report as a page and as an xlsx.
 */

/** How long a start's SMS may wait before the minute pass sends it: the server that started it normally has. */
const SMS_SAFETY_NET_MS = 60_000;

const subjectColumns: ReadonlyArray<ExportSheetColumn<MusterSubject>> = [
  { header: '企业', cell: (r) => r.enterprise },
  { header: '类型', cell: (r) => (r.kind === 'car' ? '车辆' : '人员') },
  { header: '姓名', cell: (r) => r.name },
  { header: '证件号码/车牌号', cell: (r) => r.subject },
  { header: '手机号', cell: (r) => r.phone, personal: 'phone' },
  { header: '入园道闸', cell: (r) => r.gate },
  { header: '入园时间', cell: (r) => r.entry_time ?? '' },
  { header: '来源', cell: (r) => musterSourceLabels[r.source] },
  { header: '预约编号', cell: (r) => r.application_number },
];

const eventColumns: ReadonlyArray<ExportSheetColumn<MusterEvent>> = [
  { header: '时间', cell: (r) => r.at },
  { header: '事件', cell: (r) => ({ start: '开始', mark: '标记', end: '结束' })[r.type] },
  { header: '操作人', cell: (r) => r.user_name },
  { header: '集合点', cell: (r) => r.place },
  { header: '说明', cell: (r) => r.text },
];

export async function musterRoutes(app: FastifyInstance) {
  const { ctx } = app;
  const passKeys = await loadPassKeys(ctx.db);
  const sendXlsx = xlsxExports(app);

  // SMS rows a server left waiting (it stopped between the start's commit and sending): sent once, by whichever server claims them.
  const stop = startPeriodic(app, 'muster sms', SMS_SAFETY_NET_MS, async () => {
    await deliverMusterSms(ctx, undefined, SMS_SAFETY_NET_MS);
  });
  app.addHook('onClose', async () => stop());

  unitOfWorkRoute(app, musterApi.start, async (req, trx) => {
    const id = await startMuster(trx, ctx, req.auth!, req.body);
    afterCommit(trx, () => void deliverMusterSms(ctx, id).catch((err) => app.log.error({ err }, 'muster sms failed')));
    answerInClear(req);
    return ok(await boardOf(trx, id), '应急清点已发起');
  });

  route(app, musterApi.current, async () => ok(await currentMuster(ctx.db)));

  route(app, musterApi.subjects, async (req) => {
    const running = await isRunning(ctx.db, req.query.muster_id);
    // Phones in clear only while it runs: an emergency call; afterwards the list is a record like any other.
    if (running) answerInClear(req);
    return ok({ muster_id: req.query.muster_id, running, subjects: await subjectsOf(ctx.db, req.query.muster_id) });
  });

  unitOfWorkRoute(app, musterApi.mark, async (req, trx) => {
    const r = await markSafe(trx, ctx, passKeys, req.auth!, req.body);
    answerInClear(req);
    return ok(r, r.already ? `已于${r.subject.marked_at}由${r.subject.marked_by_name ?? ''}标记` : '已标记到达');
  });

  unitOfWorkRoute(app, musterApi.end, async (req, trx) => {
    await endMuster(trx, ctx, req.auth!, req.body.muster_id);
    return ok(await reportOf(trx, req.body.muster_id), '应急清点已结束');
  });

  route(app, musterApi.page, async (req) => ok(await musterPage(ctx.db, req.body)));

  route(app, musterApi.report, async (req) => ok(await reportOf(ctx.db, req.query.id)));

  route(app, musterApi.reportExport, async (req, reply) => {
    const report = await reportOf(ctx.db, req.query.id);
    const m = report.muster;
    const title = `${m.drill ? '应急演练' : '应急清点'}报告`;
    const summary = [
      { at: m.started_at, type: 'start' as const, id: 0, user_name: m.started_by_name, place: '', text: `范围：${enumLabel('visitArea', m.visit_area)}；通知：${m.message}` },
      ...report.events,
    ];
    return sendXlsx(req, reply, {
      fileName: `${title}${m.started_at.slice(0, 10)}.xlsx`,
      fallback: `muster-${m.id}.xlsx`,
      sheet: '时间线',
      columns: eventColumns,
      pages: async function* () {
        yield summary;
      },
      more: [
        {
          sheet: '未清点人员',
          columns: subjectColumns,
          pages: async function* () {
            yield report.unaccounted;
          },
        },
      ],
    });
  });
}
