import * as v from 'valibot';
import { MAX_SANDBOX_USERS_PER_CALL } from '#shared/domain/sandbox/import-sandbox-users.ts';

/**
 * POST /v1/sandbox/users body: `{users: [...]}`. Each record is an object here and is validated by
 * the import's own schema in the use case, so a bad record is named by its index (`users[3]`).
 */
export const sandboxUsersRequestSchema = v.object({
  users: v.pipe(
    v.array(v.looseObject({})),
    v.minLength(1),
    v.maxLength(MAX_SANDBOX_USERS_PER_CALL),
    v.description('User records as the import takes them.'),
  ),
});
