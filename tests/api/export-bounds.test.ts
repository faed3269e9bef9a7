import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vehicleInOutReport, type ReportAnswer } from '../../domain/reports';
import { addDays, dateOf } from '../../domain/visit-rules';
import { EXPORT_QUEUE, EXPORTS_PER_PROCESS, exportSlots } from '../../server/core/xlsx-export';
import { Client, dialects, startServer, type TestServer } from './harness';

/**
 * Exports are bounded per process as the imports are (server/core/xlsx-export.ts):
 * at most EXPORTS_PER_PROCESS write at once, the rest wait their turn, and a
 * full queue answers 429 in Chinese; a client that leaves while waiting frees
 * its place. Every export still answers its file whole.
 * The slots are this process's, so the test can hold them as two running
 * exports would.
 */

type Row = Record<string, unknown>;

/** Waits up to 10 s for the server to reach a state (a slot is given back just after the file's last byte). */
async function settle(reached: () => boolean) {
  for (let tries = 0; tries < 1000 && !reached(); tries++) await new Promise((r) => setTimeout(r, 10));
  expect(reached()).toBe(true);
}

for (const dialect of await dialects()) {
  describe(`export bounds (${dialect})`, () => {
    let server: TestServer;
    let patrol: Client;
    let squad: Client;
    let range: Row = {};
    let expected: unknown[][] = [];

    const reportExport = (signal?: AbortSignal) =>
      fetch(`${server.base}/api${vehicleInOutReport.calls.export.path}?${new URLSearchParams(Object.entries(range).map(([k, v]) => [k, String(v)]))}`, {
        headers: { authorization: `Bearer ${patrol.token}` },
        signal,
      });
    const historyExport = () =>
      fetch(`${server.base}/api/carApplications/all/history/export`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${squad.token}` }, body: '{}' });
    const sheetRows = async (res: Response) => {
      const wb = new ExcelJS.Workbook();
      await wb.xlsx.load((await res.arrayBuffer()) as ArrayBuffer);
      const rows: unknown[][] = [];
      wb.worksheets[0]!.eachRow((r) => rows.push((r.values as unknown[]).slice(1)));
      return rows;
    };
    /** Every answer an export gave, and how many slots were taken at most while they ran. */
    const watchSlots = () => {
      let most = exportSlots.inUse;
      const timer = setInterval(() => (most = Math.max(most, exportSlots.inUse)), 1);
      return () => {
        clearInterval(timer);
        return most;
      };
    };

    beforeAll(async () => {
      server = await startServer(dialect);
      [patrol, squad] = await Promise.all(['patrol', 'squad'].map((a) => new Client(server).as(a)));
      const today = dateOf(server.app.ctx.time());
      // A year of days: a file of some size, written in several slices.
      range = { start_time: addDays(today, -365), end_time: today, visit_area: 3 };
      const answer = await patrol.get<ReportAnswer>(`${vehicleInOutReport.calls.data.path}?${new URLSearchParams(Object.entries(range).map(([k, v]) => [k, String(v)]))}`);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expected = [vehicleInOutReport.columns.map((c) => c.label), ...answer.body.data.list.map((r) => vehicleInOutReport.columns.map((c) => r[c.key]))];
      expect(expected.length).toBe(367);
    });
    afterAll(async () => server?.close());

    it('writes at most EXPORTS_PER_PROCESS exports at once, of every kind, and answers each whole', async () => {
      expect(exportSlots.inUse).toBe(0);
      const most = watchSlots();
      const answers = await Promise.all([...Array.from({ length: 10 }, reportExport), historyExport(), historyExport()]);
      // Every export went through the slots, and never more than their number at once.
      expect(most()).toBe(EXPORTS_PER_PROCESS);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      for (const res of answers.slice(0, 10)) expect(await sheetRows(res)).toEqual(expected);
      for (const res of answers.slice(10)) expect((await sheetRows(res))[0]).toContain('车牌号');
      await settle(() => exportSlots.inUse === 0);
    });

    it('queues an export while the slots are taken, answers other calls meanwhile, and writes it once a slot frees', async () => {
      const held = await Promise.all(Array.from({ length: EXPORTS_PER_PROCESS }, () => exportSlots.enter()));
      let answered = 0;
      const queued = Array.from({ length: 3 }, () => reportExport().then((res) => (answered++, res)));
      await new Promise((r) => setTimeout(r, 400));
      expect(answered).toBe(0);
      // Waiting exports hold no slot and do not stall the data calls.
      const data = await patrol.get(`${vehicleInOutReport.calls.data.path}?start_time=${String(range.start_time)}&end_time=${String(range.end_time)}&visit_area=3`);
      expect(data.status).toBe(200);
      for (const leave of held) leave();
      const answers = await Promise.all(queued);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      for (const res of answers) expect(await sheetRows(res)).toEqual(expected);
      await settle(() => exportSlots.inUse === 0);
    });

    it('answers 429 in Chinese once the queue is full, and frees the places of clients that left while waiting', async () => {
      const held = await Promise.all(Array.from({ length: EXPORTS_PER_PROCESS }, () => exportSlots.enter()));
      const leaving = Array.from({ length: EXPORT_QUEUE.maxWaiting }, () => new AbortController());
      try {
        const waiting = leaving.map((c) => reportExport(c.signal).catch((err: Error) => err));
        await settle(() => exportSlots.queued === EXPORT_QUEUE.maxWaiting);
        const refused = await reportExport();
        expect(refused.status).toBe(429);
        const body = (await refused.json()) as { success: boolean; code: number; msg: string };
        expect(body).toMatchObject({ success: false, code: 1012, msg: `导出任务繁忙（同时最多${EXPORTS_PER_PROCESS}个，已有${EXPORT_QUEUE.maxWaiting}个在排队），请稍后再试` });
        // Clients that give up leave the queue: no file is written for them.
        for (const c of leaving) c.abort();
        expect((await Promise.all(waiting)).every((r) => r instanceof Error)).toBe(true);
        await settle(() => exportSlots.queued === 0);
      } finally {
        for (const leave of held) leave();
      }
      expect(exportSlots.inUse).toBe(0);
      const after = await reportExport();
      expect(after.status).toBe(200);
      expect(await sheetRows(after)).toEqual(expected);
      await settle(() => exportSlots.inUse === 0);
    });
  });
}
