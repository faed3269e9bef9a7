import { sql } from 'kysely';
import type { LocationRow } from '../../../domain/schemas/driving-route';
import type { Db } from '../../core/repository';

/** 道闸类型 1 车辆道闸 (enums.gateType): the gates a vehicle route can pass. */
const VEHICLE_BARRIER = 1;

/** A time bound into a SELECT list: typed, since PostgreSQL cannot infer a parameter's type there. */
const stamp = (time: string) => sql<string>`cast(${time} as varchar(19))`;

/**
 * Every vehicle gate of the equipment register is a point of the park. A gate
 * registered after the migration (the equipment screen, the demo seed, an
 * import) gets its point here, the first time the points are read after it:
 * one conditional INSERT, decided by the unique index on equipment_id, so two
 * servers reading at once add each gate once. A gate's point keeps the gate's
 * current name and place (answered from the register), so editing the gate
 * needs nothing here.
 */
export async function addGatePoints(db: Db, now: string): Promise<void> {
  await db
    .insertInto('location')
    .columns(['name', 'longitude', 'latitude', 'equipment_id', 'create_time', 'update_time'])
    .expression((eb) =>
      eb
        .selectFrom('equipment as e')
        .select(['e.name', 'e.longitude', 'e.latitude', 'e.id', stamp(now).as('create_time'), stamp(now).as('update_time')])
        .where('e.kind', '=', 'gate')
        .where('e.type', '=', VEHICLE_BARRIER)
        .where('e.deleted', '=', 0)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('location as l').select('l.id').whereRef('l.equipment_id', '=', 'e.id')))),
    )
    .onConflict((oc) => oc.column('equipment_id').doNothing())
    .execute();
}

/**
 * The live points, by id (or all): a gate's with the register's name and
 * coordinates, and only while it is a live vehicle gate; a point of its own
 * as stored.
 */
export async function livePoints(db: Db, ids?: readonly number[]): Promise<LocationRow[]> {
  if (ids && ids.length === 0) return [];
  let q = db
    .selectFrom('location as l')
    .leftJoin('equipment as e', 'e.id', 'l.equipment_id')
    .select(['l.id', 'l.name', 'l.longitude', 'l.latitude', 'l.equipment_id', 'e.name as gate_name', 'e.longitude as gate_longitude', 'e.latitude as gate_latitude'])
    .where((eb) => eb.or([eb('l.equipment_id', 'is', null), eb.and([eb('e.deleted', '=', 0), eb('e.kind', '=', 'gate'), eb('e.type', '=', VEHICLE_BARRIER)])]));
  if (ids) q = q.where('l.id', 'in', [...ids]);
  const rows = await q.orderBy('l.id').execute();
  return rows.map((r) =>
    r.equipment_id === null
      ? { id: r.id, name: r.name, longitude: r.longitude, latitude: r.latitude, equipment_id: null }
      : { id: r.id, name: r.gate_name ?? r.name, longitude: r.gate_longitude, latitude: r.gate_latitude, equipment_id: r.equipment_id },
  );
}

/** Points in the order the route lists them (its location_id); ids no longer live are left out. */
export async function pointsInOrder(db: Db, ids: readonly number[]): Promise<LocationRow[]> {
  const byId = new Map((await livePoints(db, ids)).map((p) => [p.id, p]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
