import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../index';
import { withId } from './001-foundation';

/**
 * The chain an approval instance follows (DESIGN.md §4: configuration is
 * edited while applications are under way). At submit the engine copies its
 * process's definition, node by node, with each node's candidates rule (role,
 * departments, visited-enterprise check, countersign) and overtime limit;
 * from then on the engine, the queues and the process view read only this
 * copy, so an administrator's edit applies to later submissions and never to
 * an instance already running, rejected or revoked (a resume restarts on the
 * copy too). `definition_node_id` and `process_node_id` say where a row came
 * from; `depart_ids` is a JSON array of department ids (empty for a
 * visited-enterprise node, whose department is the application's).
 *
 * Instances submitted before this migration get a copy of today's
 * configuration, which is the chain they have been following so far.
 */
export function instanceChain(dialect: Dialect) {
  return {
    async up(db: Kysely<any>) {
      await withId(db.schema.createTable('process_instance_node'), 'instance_node_id', dialect)
        .addColumn('process_instance_id', 'integer', (c) => c.notNull())
        .addColumn('sort', 'integer', (c) => c.notNull())
        .addColumn('definition_node_id', 'integer', (c) => c.notNull())
        .addColumn('process_node_id', 'integer', (c) => c.notNull())
        .addColumn('name', 'varchar(30)', (c) => c.notNull())
        .addColumn('role_id', 'integer', (c) => c.notNull())
        .addColumn('depart_ids', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('countersign', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('company_check', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('overtime_auto_check', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('overtime_hours', 'integer', (c) => c.notNull().defaultTo(24))
        .execute();
      // The engine's reads (this node, the next one) and the queues' join on (instance, sort).
      await db.schema.createIndex('process_instance_node_chain').on('process_instance_node').columns(['process_instance_id', 'sort']).unique().execute();
      // "Is this node still used by a running instance?" before a node is deleted.
      await db.schema.createIndex('process_instance_node_source').on('process_instance_node').column('process_node_id').execute();
      // The same question for a definition.
      await db.schema.createIndex('process_instance_definition').on('process_instance').columns(['process_definition_id', 'state']).execute();

      // Backfill: one INSERT … SELECT per configured node (a handful), each carrying that node's departments.
      const nodes = await db.selectFrom('process_node').select(['process_node_id', 'company_check']).execute();
      for (const { process_node_id, company_check } of nodes) {
        const departs = await db.selectFrom('process_node_depart').select('depart_id').where('process_node_id', '=', process_node_id).orderBy('depart_id').execute();
        // A visited-enterprise node reviews in the application's department, never in configured ones (as the engine copies it).
        const json = JSON.stringify(Number(company_check) === 1 ? [] : departs.map((d) => Number(d.depart_id)));
        await db
          .insertInto('process_instance_node')
          .columns(['process_instance_id', 'sort', 'definition_node_id', 'process_node_id', 'name', 'role_id', 'depart_ids', 'countersign', 'company_check', 'overtime_auto_check', 'overtime_hours'])
          .expression(
            db
              .selectFrom('process_instance as i')
              .innerJoin('process_definition_node as d', 'd.process_definition_id', 'i.process_definition_id')
              .innerJoin('process_node as n', 'n.process_node_id', 'd.process_node_id')
              .select([
                'i.process_instance_id',
                'd.sort',
                'd.definition_node_id',
                'n.process_node_id',
                'd.name',
                'n.role_id',
                sql<string>`cast(${json} as text)`.as('depart_ids'),
                'n.countersign',
                'n.company_check',
                'n.overtime_auto_check',
                'n.overtime_hours',
              ])
              .where('n.process_node_id', '=', process_node_id),
          )
          .execute();
      }
    },
  };
}
