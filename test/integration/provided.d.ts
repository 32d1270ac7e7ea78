import type { LocalEndpoints } from '#local/local-stack.ts';
import type { LocalUsersDatabase } from '#local/users-postgres.ts';

/** Values test/integration/global-setup.ts provides to every integration test via `inject()`. */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The local router, e.g. `http://127.0.0.1:41234`. */
    baseUrl: string;
    /** Emulator endpoints: dynamodb, sqs, s3, ses (the SES emulator also serves `/store`). */
    endpoints: LocalEndpoints;
    /** The environment the handlers run with, including LOCAL_KEYS_DIR for minting tokens. */
    localEnv: Record<string, string>;
    /** The users table's PostgreSQL: address, superuser, reader role, postmaster process id. */
    usersDatabase: Omit<LocalUsersDatabase, 'stop'>;
    /** DynamoDB Local's process id (fault tier only: test/faults/global-setup.ts). */
    databaseProcessId: number;
  }
}

export {};
