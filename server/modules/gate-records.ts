import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { Call } from '../../domain/contract';
import { isMainlandIdNumber, PLATE_PATTERN } from '../../domain/identity';
import { gateRecordApi, gateRecordLabels, recordDays, recordRangeErrors } from '../../domain/schemas/gate-record';
import { dateOf } from '../../domain/visit-rules';
import { ok } from '../core/errors';
import { containsText, pageOf, rememberedTotal } from '../core/paging';
import { tableRepository, type Db, type FilterMatch, type ListFilter, type RowValues } from '../core/repository';
import { route } from '../core/route';
import { ruleFailure } from '../core/validate';
import { holds, type registerReadCodes } from './access';

/**
 * 车辆过闸记录 and 人员过闸记录 (spec 001 §2, §7): read-only lists of the
 * crossings the device API stores (devices/ingest.ts), newest first by
 * capture time. Not a declared resource: a list always covers whole days,
 * today unless the query names others, and "today" is the park's, which only
 * the server knows. So every page and its count are a range of the
 * (capture_time, id) index, however many millions of rows the table holds
 * (a person range at most MAX_RECORD_DAYS long, unless a whole ID number
 * narrows it), and a whole plate or ID number is an equality on its own index.
 */

/** A whole plate or ID number matches exactly (its index); part of one is searched within the list's days. */
const wholeOrPart =
  (column: string, whole: (v: string) => boolean): FilterMatch =>
  (q, v) =>
    whole(String(v)) ? q.where(column, '=', v) : q.where(containsText(column, String(v)));

const equals = (column: string) => ({ column, match: 'equals' as const });

/** 危化品 yes is its own partial index (migration 038), which PostgreSQL uses only for the predicate written as a literal. */
const hazmatMatch: FilterMatch = (q, v) => (v === 1 ? q.where(sql.ref('hazmat'), '=', sql.lit(1)) : q.where('hazmat', '=', v));

interface RecordList {
  table: keyof typeof registerReadCodes & `gate_record_${string}`;
  /** The page's declaration: path, code, query and row. */
  call: Call;
  columns: readonly string[];
  filters: Record<string, ListFilter>;
  /** The spec's column names answered beside ours (the person list's paper_number). */
  aliases?: Record<string, string>;
}

/** 道闸类型 1 车辆道闸 (enums.gateType); 2 is 人行闸机. */
const VEHICLE_BARRIER = 1;

const shared = ['id', 'device_id', 'event_id', 'direction', 'open_result', 'capture_time', 'create_time'] as const;

const lists: RecordList[] = [
  {
    table: 'gate_record_car',
    call: gateRecordApi.car,
    columns: [
      ...shared,
      'license_plate',
      'license_plate_color',
      'plate_image',
      'vehicle_image',
      'vehicle_brand',
      'vehicle_type',
      'vehicle_color',
      'vehicle_compare_result',
      'face_compare_result',
      'deviated',
      'hazmat',
      'waybill_number',
    ],
    filters: {
      licensePlate: { column: 'license_plate', match: wholeOrPart('license_plate', (v) => PLATE_PATTERN.test(v)) },
      vehicleColor: equals('vehicle_color'),
      deviceId: equals('device_id'),
      direction: equals('direction'),
      openResult: equals('open_result'),
      deviated: equals('deviated'),
      hazmat: { column: 'hazmat', match: hazmatMatch },
    },
  },
  {
    table: 'gate_record_person',
    call: gateRecordApi.person,
    columns: [...shared, 'idcard', 'person_name', 'card_number', 'card_status', 'image_type', 'snapshot'],
    filters: {
      idCard: { column: 'idcard', match: wholeOrPart('idcard', isMainlandIdNumber) },
      personName: { column: 'person_name', match: 'contains' },
      openResult: equals('open_result'),
    },
    aliases: { paper_number: 'idcard', person_event_type: 'direction' },
  },
];

/** Each row's device name (deleted devices keep theirs) and the spec's aliases; ID numbers are masked on the way out (core/personal-data.ts), the idCard filter still takes the whole number. */
async function decorate(rows: RowValues[], db: Db, def: RecordList): Promise<RowValues[]> {
  const ids = [...new Set(rows.map((r) => r.device_id as number))];
  const names = new Map(ids.length ? (await db.selectFrom('equipment').select(['id', 'name']).where('id', 'in', ids).execute()).map((e) => [e.id, e.name]) : []);
  return rows.map((r) => {
    const row: RowValues = { ...r, device_name: names.get(r.device_id as number) ?? null };
    return { ...row, ...Object.fromEntries(Object.entries(def.aliases ?? {}).map(([alias, column]) => [alias, row[column]])) };
  });
}

export async function gateRecordRoutes(app: FastifyInstance) {
  const { ctx } = app;

  for (const def of lists) {
    const repo = tableRepository(ctx.db, {
      table: def.table,
      key: 'id',
      columns: def.columns,
      orderBy: [
        ['capture_time', 'desc'],
        ['id', 'desc'],
      ],
    });
    route(app, def.call, async (req) => {
      const q = req.body as RowValues & { size: number; pn: number; date?: string; idCard?: string; startDate?: string; endDate?: string };
      const today = dateOf(ctx.time());
      const errors = recordRangeErrors(q, today);
      if (errors.length) throw ruleFailure(errors, gateRecordLabels);
      const [first, last] = recordDays(q, today);
      const days = repo.live().where('capture_time', '>=', `${first} 00:00:00`).where('capture_time', '<=', `${last} 23:59:59`);
      const filtered = await repo.applyFilters(days, def.filters, q);
      const count = async () => ({ total: await repo.count(filtered) });
      // The screen opens on today's crossings, unfiltered: that total is remembered until the next batch stored (ingest.ts).
      const unfiltered = Object.keys(def.filters).every((name) => q[name] === undefined || q[name] === null || q[name] === '');
      const page = await pageOf(q, unfiltered ? rememberedTotal({ db: ctx.db, table: def.table, scope: `days:${first}:${last}` }, count) : count, async (limit, offset) =>
        decorate(await repo.page(filtered, limit, offset), ctx.db, def),
      );
      return ok(page as never);
    });
  }

  // The gate filter's choices: the park's vehicle barriers (道闸类型 车辆道闸; a 人行闸机 records no vehicle).
  route(app, gateRecordApi.gates, async () =>
    ok(await ctx.db.selectFrom('equipment').select(['id', 'name', 'number']).where('kind', '=', 'gate').where('type', '=', VEHICLE_BARRIER).where('deleted', '=', 0).orderBy('id').execute()),
  );
}
