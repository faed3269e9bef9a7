/**
 * Contested-decision race. Each round files two vehicle applications A and B
 * (as `contact`), brings them to the same node — the visited enterprise's
 * review (`reviewer`) or the squad's final review (`squad`) — and then fires
 * at once, each with its own Idempotency-Key:
 *   approve A, reject A, batch approve [A, B] (the node's approver),
 *   revoke A (the applicant), return A (the squad, from the all-history),
 *   and one of reject / revoke / return on B.
 * Afterwards every application is checked in the database and every answer
 * against the others. Counted:
 *   double decisions   a task or node decided twice, an instance advanced twice, two 2xx for one task
 *   inconsistent apps  application state vs instance state vs open tasks disagree, or the decision
 *                      stored is not the one that was answered 2xx
 *   non-409 losers     a loser answering anything but 409 (5xx in particular)
 *   unexplainable      no serial order of the actions gives exactly the answers seen and the final state
 *
 *   npx tsx scripts/reliability/race.ts [--dialect sqlite|postgres|both]
 *   RACE_TASKS=1000 (contested tasks: two per round)  RACE_PARALLEL=4 (rounds at once)
 */
import { randomUUID } from 'node:crypto';
import { AppState, TaskState } from '../../domain/appointments';
import { carApplicationBody } from '../../tests/api/fixtures';
import { Client, readLog, startServer, type DialectName, type TestServer } from '../../tests/api/harness';
import { dialectsFromArgs, intEnv, table } from './common';

const TASKS = intEnv('RACE_TASKS', 1000);
const PARALLEL = intEnv('RACE_PARALLEL', 4);
const ROUNDS = Math.ceil(TASKS / 2);

const INSTANCE = { RUNNING: 0, APPROVED: 1, REJECTED: 2, REVOKED: 3 } as const;
/** The application state each instance state goes with (engine.ts setSubjectState). */
const appStateOfInstance: Record<number, number> = {
  [INSTANCE.RUNNING]: AppState.REVIEW,
  [INSTANCE.APPROVED]: AppState.APPROVED,
  [INSTANCE.REJECTED]: AppState.REJECTED,
  [INSTANCE.REVOKED]: AppState.REVOKED,
};

type Op = 'approve' | 'reject' | 'batch' | 'revoke' | 'return';

interface Shot {
  op: Op;
  /** The application this shot acts on (a batch is one shot per application: one transaction each). */
  app: 'A' | 'B';
  status: number;
  body: any;
  /** Whether the action took effect on this application, as the answer says; null when the answer cannot tell. */
  won: boolean | null;
}

interface Round {
  n: number;
  node: 1 | 2;
  ids: { A: number; B: number };
  tasks: { A: number; B: number };
  shots: Shot[];
}

interface Problem {
  kind: 'double decision' | 'inconsistent application' | 'non-409 loser' | 'unexplainable outcome';
  round: number;
  detail: string;
}

const REMARK: Record<Op, string> = { approve: 'race-approve', reject: 'race-reject', batch: 'race-batch', revoke: 'race-revoke', return: 'race-return' };

async function raceDialect(dialect: DialectName) {
  const server: TestServer = await startServer(dialect, {
    rateLimits: { captchaPerAccount: 100_000, captchaPerIp: 100_000, loginPerAccount: 100_000, loginPerIp: 100_000 },
  });
  try {
    const { db } = server.app.ctx;
    const as: Record<string, Client> = {};
    for (const a of ['contact', 'reviewer', 'squad']) as[a] = await new Client(server).as(a);
    const model = (await db.selectFrom('vehicle_type').select('id').where('name', '=', '小型汽车').executeTakeFirstOrThrow()).id;
    const shell = (await db.selectFrom('sys_department').select('depart_id').where('code', '=', 'CNOOC_SHELL').executeTakeFirstOrThrow()).depart_id;
    const today = server.app.ctx.time().slice(0, 10);
    let plates = 0;

    /** One call; an answer that is not JSON (or no answer) is kept as status and text, never thrown. */
    const call = async (who: string, url: string, body: unknown) => {
      try {
        return await as[who]!.call('POST', url, body, { 'idempotency-key': randomUUID() });
      } catch (err) {
        return { status: 0, body: { error: String(err) } as any };
      }
    };
    const must = async (who: string, url: string, body: unknown) => {
      const r = await call(who, url, body);
      if (!r.body?.success) throw new Error(`${who} ${url}: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.data;
    };
    const pendingTask = async (appId: number, queue: string) =>
      (await db.selectFrom('process_task').select('process_task_id').where('ref_id', '=', appId).where('queue', '=', queue).where('state', '=', TaskState.PENDING).executeTakeFirstOrThrow())
        .process_task_id;

    const fileApplication = async (node: 1 | 2) => {
      const seq = ++plates;
      const body = carApplicationBody({
        today,
        license_plate: `粤R${seq.toString(36).toUpperCase().padStart(5, '0')}`,
        applicant_idcard: '441302199001011231',
        vehicle_type_id: model,
        interviewee_depart_id: shell,
      });
      const { id } = await must('contact', '/carApplications/save', body);
      await must('contact', '/carApplications/push', { id });
      if (node === 2) await must('reviewer', '/carApplications/task/check', { taskIds: [await pendingTask(id, 'car_task')], result: 1, remark: '同意' });
      return { id: id as number, task: await pendingTask(id, node === 1 ? 'car_task' : 'car_final') };
    };

    const rounds: Round[] = [];
    const started = Date.now();
    let next = 0;
    const worker = async () => {
      while (next < ROUNDS) {
        const n = next++;
        const node = (n % 2 === 0 ? 1 : 2) as 1 | 2;
        const [a, b] = await Promise.all([fileApplication(node), fileApplication(node)]);
        const decider = node === 1 ? 'reviewer' : 'squad';
        const check = node === 1 ? '/carApplications/task/check' : '/carApplications/shdd_final/taskCheck';
        const onB: Op = (['reject', 'revoke', 'return'] as const)[n % 3]!;
        const actions: Array<{ op: Op; apps: Array<'A' | 'B'>; fire: () => ReturnType<typeof call> }> = [
          { op: 'approve', apps: ['A'], fire: () => call(decider, check, { taskIds: [a.task], result: 1, remark: REMARK.approve }) },
          { op: 'reject', apps: ['A'], fire: () => call(decider, check, { taskIds: [a.task], result: 2, remark: REMARK.reject }) },
          { op: 'batch', apps: ['A', 'B'], fire: () => call(decider, check, { taskIds: [a.task, b.task], result: 1, remark: REMARK.batch }) },
          { op: 'revoke', apps: ['A'], fire: () => call('contact', '/carApplications/revoke', { id: a.id, reason: REMARK.revoke }) },
          { op: 'return', apps: ['A'], fire: () => call('squad', '/carApplications/return', { carApplicationId: a.id, remark: REMARK.return }) },
          {
            op: onB,
            apps: ['B'],
            fire: () =>
              onB === 'reject'
                ? call(decider, check, { taskIds: [b.task], result: 2, remark: REMARK.reject })
                : onB === 'revoke'
                  ? call('contact', '/carApplications/revoke', { id: b.id, reason: REMARK.revoke })
                  : call('squad', '/carApplications/return', { carApplicationId: b.id, remark: REMARK.return }),
          },
        ];
        // Shuffled so that no action always leaves first.
        for (let i = actions.length - 1; i > 0; i--) {
          const j = Math.floor(Math.random() * (i + 1));
          [actions[i], actions[j]] = [actions[j]!, actions[i]!];
        }
        const answers = await Promise.all(actions.map((x) => x.fire()));
        const shots: Shot[] = [];
        actions.forEach((x, i) => {
          const r = answers[i]!;
          for (const app of x.apps) {
            let won: boolean | null = r.status >= 200 && r.status < 300 ? true : r.status === 409 ? false : null;
            // A batch that partly failed answers 409 with the tasks it did and did not do.
            if (x.op === 'batch' && r.status === 409 && Array.isArray(r.body?.data?.done)) won = r.body.data.done.includes(app === 'A' ? a.task : b.task);
            shots.push({ op: x.op, app, status: r.status, body: r.body, won });
          }
        });
        rounds.push({ n, node, ids: { A: a.id, B: b.id }, tasks: { A: a.task, B: b.task }, shots });
        if (rounds.length % 100 === 0) console.log(`[${dialect}] ${rounds.length}/${ROUNDS} rounds (${Math.round((Date.now() - started) / 1000)} s)`);
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    const seconds = Math.round((Date.now() - started) / 1000);

    const problems: Problem[] = [];
    const wins: Record<string, number> = {};
    const statuses: Record<number, number> = {};
    for (const r of rounds) {
      for (const s of r.shots) {
        // A batch is one request: its answer counts once.
        if (!(s.op === 'batch' && s.app === 'B')) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
        if (s.won) wins[`${s.op}`] = (wins[`${s.op}`] ?? 0) + 1;
        if (!(s.status >= 200 && s.status < 300) && s.status !== 409 && !(s.op === 'batch' && s.app === 'B')) {
          problems.push({ kind: 'non-409 loser', round: r.n, detail: `${s.op} ${s.app}: ${s.status} ${JSON.stringify(s.body).slice(0, 300)}` });
        }
      }
      for (const app of ['A', 'B'] as const) problems.push(...(await checkApplication(server, r, app)));
    }
    const log = readLog(server);
    const deadlocks = (log.match(/deadlock detected/g) ?? []).length;
    return { dialect, rounds: rounds.length, tasks: rounds.length * 2, requests: rounds.length * 6, seconds, problems, wins, statuses, deadlocks };
  } finally {
    await server.close();
  }
}

/** Checks one contested application in the database and against the answers of its round. */
async function checkApplication(server: TestServer, r: Round, which: 'A' | 'B'): Promise<Problem[]> {
  const { db } = server.app.ctx;
  const out: Problem[] = [];
  const id = r.ids[which];
  const taskId = r.tasks[which];
  const say = (kind: Problem['kind'], detail: string) => out.push({ kind, round: r.n, detail: `${which} (car_application ${id}, node ${r.node}): ${detail}` });
  const app = await db.selectFrom('car_application').select(['state', 'process_instance_id']).where('car_application_id', '=', id).executeTakeFirstOrThrow();
  const inst = await db.selectFrom('process_instance').selectAll().where('process_instance_id', '=', app.process_instance_id!).executeTakeFirstOrThrow();
  const tasks = await db.selectFrom('process_task').selectAll().where('process_instance_id', '=', inst.process_instance_id).orderBy('process_task_id').execute();

  // --- double decisions
  const decided = tasks.filter((t) => t.state === TaskState.DONE && t.queue !== null);
  const returns = tasks.filter((t) => t.state === TaskState.DONE && t.queue === null);
  const bySort = new Map<number, number>();
  for (const t of decided) bySort.set(t.sort, (bySort.get(t.sort) ?? 0) + 1);
  for (const [sort, n] of bySort) if (n > 1) say('double decision', `node ${sort} decided ${n} times`);
  if (returns.length > 1) say('double decision', `returned ${returns.length} times`);
  const rejectedAtNode = decided.some((t) => t.sort === r.node && t.result === 2);
  if (returns.length && rejectedAtNode) say('double decision', 'rejected by its approver and returned by the squad');
  const perCandidate = new Map<string, number>();
  for (const t of tasks.filter((x) => x.queue !== null)) perCandidate.set(`${t.sort}/${t.user_id}`, (perCandidate.get(`${t.sort}/${t.user_id}`) ?? 0) + 1);
  for (const [k, n] of perCandidate) if (n > 1) say('double decision', `node/user ${k} given ${n} tasks: the instance advanced twice`);
  const deciders = r.shots.filter((s) => s.app === which && (s.op === 'approve' || s.op === 'reject' || s.op === 'batch') && s.won);
  if (deciders.length > 1) say('double decision', `task ${taskId} answered 2xx to ${deciders.map((s) => s.op).join(' and ')}`);

  // --- consistency of application, instance and tasks
  const open = tasks.filter((t) => t.state === TaskState.PENDING);
  if (appStateOfInstance[inst.state] !== app.state) say('inconsistent application', `application state ${app.state}, instance state ${inst.state}`);
  if (inst.state === INSTANCE.RUNNING && (open.length === 0 || open.some((t) => t.sort !== inst.current_sort)))
    say('inconsistent application', `running at node ${inst.current_sort} with open tasks at ${JSON.stringify(open.map((t) => t.sort))}`);
  if (inst.state !== INSTANCE.RUNNING && open.length) say('inconsistent application', `instance state ${inst.state} but ${open.length} open tasks`);
  const contested = tasks.find((t) => t.process_task_id === taskId)!;
  const storedWinner = contested.state === TaskState.DONE ? contested.remark : null;
  const answeredWinner = deciders[0] ? REMARK[deciders[0].op] : null;
  if (deciders.length <= 1 && storedWinner !== answeredWinner && !r.shots.some((s) => s.app === which && s.won === null))
    say('inconsistent application', `task ${taskId} stored decision ${storedWinner ?? 'none'} but answered ${answeredWinner ?? 'none'}`);

  // --- a serial order that explains every answer and the final state
  const mine = r.shots.filter((s) => s.app === which);
  if (!explainable(mine, r.node, app.state)) {
    say('unexplainable outcome', `answers ${mine.map((s) => `${s.op}=${s.won === null ? '?' : s.won ? 'won' : 'lost'}`).join(', ')}; final state ${app.state}`);
  }
  return out;
}

/**
 * Whether some order of the actions, run one at a time from "under review
 * with the contested task pending at `node`", gives exactly the wins and
 * losses seen (unknowns either way) and ends in `finalState`.
 */
function explainable(shots: Shot[], node: 1 | 2, finalState: number): boolean {
  const run = (order: Shot[]): boolean => {
    let state: number = AppState.REVIEW;
    let pending = true;
    for (const s of order) {
      let allowed: boolean;
      let next = state;
      switch (s.op) {
        case 'approve':
        case 'batch':
          allowed = state === AppState.REVIEW && pending;
          if (allowed) next = node === 2 ? AppState.APPROVED : AppState.REVIEW;
          break;
        case 'reject':
          allowed = state === AppState.REVIEW && pending;
          next = AppState.REJECTED;
          break;
        case 'revoke':
          allowed = state === AppState.REVIEW || state === AppState.APPROVED;
          next = AppState.REVOKED;
          break;
        case 'return':
          allowed = state === AppState.REVIEW;
          next = AppState.REJECTED;
          break;
      }
      if (s.won !== null && s.won !== allowed) return false;
      if (allowed && s.won !== false) {
        state = next;
        pending = false;
      }
    }
    return state === finalState;
  };
  const permute = (rest: Shot[], done: Shot[]): boolean => {
    if (rest.length === 0) return run(done);
    return rest.some((s, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...done, s]));
  };
  return permute(shots, []);
}

const KINDS: Problem['kind'][] = ['double decision', 'inconsistent application', 'non-409 loser', 'unexplainable outcome'];
const results = [];
for (const dialect of dialectsFromArgs()) {
  console.log(`[${dialect}] ${ROUNDS} rounds, ${ROUNDS * 2} contested tasks, ${PARALLEL} rounds at once`);
  results.push(await raceDialect(dialect));
}
for (const r of results) {
  console.log(`\n=== ${r.dialect}: ${r.tasks} contested tasks, ${r.requests} contending requests in ${r.seconds} s ===`);
  console.log(
    `answers by status: ${Object.entries(r.statuses)
      .map(([s, n]) => `${s}: ${n}`)
      .join(', ')}`,
  );
  console.log(
    `actions that took effect: ${Object.entries(r.wins)
      .map(([op, n]) => `${op} ${n}`)
      .join(', ')}`,
  );
  const non409 = r.problems.filter((p) => p.kind === 'non-409 loser');
  console.log(
    `non-409 losers by status: ${JSON.stringify(non409.reduce<Record<string, number>>((m, p) => ((m[p.detail.split(' ')[2]!] = (m[p.detail.split(' ')[2]!] ?? 0) + 1), m), {}))}; "deadlock detected" in the server log: ${r.deadlocks}`,
  );
  for (const kind of KINDS) {
    for (const p of r.problems.filter((x) => x.kind === kind).slice(0, 3)) console.log(`- [${kind}] round ${p.round}: ${p.detail}`);
  }
}
console.log('\n=== summary ===');
console.log(
  table([
    ['dialect', 'contested tasks', 'requests', 'seconds', ...KINDS],
    ...results.map((r) => [r.dialect, r.tasks, r.requests, r.seconds, ...KINDS.map((k) => r.problems.filter((p) => p.kind === k).length)]),
  ]),
);
process.exit(results.some((r) => r.problems.length > 0) ? 1 : 0);
