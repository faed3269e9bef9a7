/**
 * What is older than the wire contract (contract.test.ts): routes not yet
 * declaring their answer, and files still writing API paths of their own.
 * Both lists only shrink. Regenerate with `npx tsx scripts/contract-gaps.ts`
 * once a route or file has moved to its declaration in domain/.
 */
export const unansweredRoutes: string[] = [
  'POST /api/carBlackWhiteList/task/check',
  'POST /api/carBlackWhiteList/task/page',
  'POST /api/personBlackWhiteList/task/check',
  'POST /api/personBlackWhiteList/task/page',
  'POST /api/transportList/check',
  'POST /api/transportList/taskPage',
  'POST /api/vehicleRegistration/task/check',
  'POST /api/vehicleRegistration/task/page',
];

export const pathLiteralGaps: Record<string, number> = {
  'src/features/appointments/car/car-form.tsx': 1,
};
