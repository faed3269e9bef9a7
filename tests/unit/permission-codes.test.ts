import { describe, expect, it } from 'vitest';
import { allPermissionCodes, type PermissionCode } from '../../domain/permissions';

// The type check (npm run typecheck, tsconfig.tests.json) is the real test here: a code the tree does not declare is an error.
const known: PermissionCode = 'carApplyApproval:check';
// @ts-expect-error misspelled code (carApplyApprovel)
const misspelled: PermissionCode = 'carApplyApprovel:check';

describe('permission codes', () => {
  it('derives the code type from the tree the seed writes', () => {
    expect(allPermissionCodes).toContain(known);
    expect(allPermissionCodes).not.toContain(misspelled);
  });
});
