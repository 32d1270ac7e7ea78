import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ImportAbortedError,
  importUserLines,
  type RejectedLine,
} from '../../../scripts/users-import/import-user-lines.ts';
import { createProgressReporter } from '../../../scripts/users-import/progress.ts';
import { parseUserLine } from '../../../scripts/users-import/user-line.ts';
import { decodeChunk } from '../../../shared/adapters/dynamodb/user-digest.ts';

const documentsMock = mockClient(DynamoDBDocumentClient);
const documents = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

const line = (record: Record<string, unknown>) => JSON.stringify(record);
const user = (id: string, extra: Record<string, unknown> = {}) =>
  line({ id, created_at: '2024-01-01T00:00:00Z', ...extra });

async function* linesOf(lines: string[]): AsyncIterable<string> {
  yield* lines;
}

const writtenItems = () =>
  documentsMock
    .commandCalls(BatchWriteCommand)
    .flatMap((call) => call.args[0].input.RequestItems!.Users!.map((request) => request.PutRequest!.Item!));

describe('parseUserLine', () => {
  it.each(['', '   ', '\t', '\uFEFF'])('skips the blank line %j', (text) => {
    expect(parseUserLine('acme', text)).toEqual({ kind: 'blank' });
  });

  it('turns a valid line into its stored item, keys included, a leading BOM and CR ignored', () => {
    const parsed = parseUserLine('acme', `\uFEFF${user('u-1', { email: 'Jane@Example.com' })}\r`);

    expect(parsed).toEqual({
      kind: 'valid',
      record: { id: 'u-1', email: 'Jane@Example.com', created_at: '2024-01-01T00:00:00.000Z', organization_id: 'acme' },
      item: {
        id: 'u-1',
        email: 'Jane@Example.com',
        created_at: '2024-01-01T00:00:00.000Z',
        organization_id: 'acme',
        pk: 'ORG#acme',
        sk: 'USER#u-1',
        createdAtSk: '2024-01-01T00:00:00.000Z#u-1',
        emailPk: 'ORG#acme#EMAIL#jane@example.com',
        // Neither a registration status nor an age: the `-` partition of both in byStatus.
        statusPk: 'ORG#acme#STATUS#-#AGE#-',
      },
    });
  });

  it('rejects a line that is not JSON', () => {
    expect(parseUserLine('acme', '{"id": "u-1",')).toEqual({
      kind: 'rejected',
      problems: [expect.stringMatching(/^not valid JSON \(/)],
    });
  });

  it('rejects a line the record schema refuses, with its reasons', () => {
    expect(parseUserLine('acme', user('u-1', { organization_id: 'globex' }))).toEqual({
      kind: 'rejected',
      problems: ['organization_id: is globex, not acme'],
    });
  });

  it('rejects numbers the document client cannot store exactly, wherever they are nested', () => {
    const screening = {
      status: 'Cleared',
      timestamp: '2024-01-01T00:00:00Z',
      pep_result: [{ notes: [1e20] }],
      sanction_result: [],
    };

    expect(parseUserLine('acme', user('u-1', { idcheck_pep_sanction_result: screening }))).toEqual({
      kind: 'rejected',
      problems: [
        expect.stringMatching(
          /^idcheck_pep_sanction_result\.pep_result\[0\]\.notes\[0\]: number 100000000000000000000 cannot be stored/,
        ),
      ],
    });
  });

  it("rejects a record over DynamoDB's 400 KB item limit", () => {
    const parsed = parseUserLine('acme', user('u-1', { override_notes: 'x'.repeat(410_000) }));

    expect(parsed).toEqual({
      kind: 'rejected',
      problems: [expect.stringMatching(/^record: about \d+ bytes stored, over DynamoDB's 409600-byte item limit/)],
    });
  });

  it('rejects nesting deeper than DynamoDB takes', () => {
    let notes: unknown = 'deep';
    for (let i = 0; i < 40; i++) notes = [notes];
    const screening = {
      status: 'Cleared',
      timestamp: '2024-01-01T00:00:00Z',
      pep_result: [{ notes }],
      sanction_result: [],
    };

    const parsed = parseUserLine('acme', user('u-1', { idcheck_pep_sanction_result: screening }));

    expect(parsed).toEqual({ kind: 'rejected', problems: [expect.stringMatching(/nested more than 32 levels deep$/)] });
  });

  it('rejects an e-mail too long for the byEmail index key', () => {
    const parsed = parseUserLine(
      'acme',
      user('u-1', { email: `${'a'.repeat(60)}@${'b'.repeat(60)}.${'c'.repeat(2000)}` }),
    );

    expect(parsed).toEqual({
      kind: 'rejected',
      problems: ["emailPk: key value is over DynamoDB's 2048-byte key limit"],
    });
  });
});

describe('importUserLines', () => {
  beforeEach(() => {
    documentsMock.reset();
    // A new organization: no digest state and no users yet, so the import's digest starts empty.
    documentsMock.on(UpdateCommand).resolves({ Attributes: {} });
    documentsMock.on(GetCommand).resolves({});
    documentsMock.on(QueryCommand).resolves({ Items: [] });
    documentsMock.on(PutCommand).resolves({});
  });

  it('writes the valid lines, reports each bad line with its number and reasons, and never writes a bad line', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    const rejected: RejectedLine[] = [];

    const counts = await importUserLines({
      lines: linesOf([user('u-1'), '', 'not json', user('u-2', { email: 'nope' }), user('u-3'), '   ']),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
      onRejected: (rejection) => rejected.push(rejection),
    });

    expect(counts).toEqual({ lines: 6, imported: 2, rejected: 2, duplicateIds: 0, digest: 'merged' });
    expect(rejected).toEqual([
      { lineNumber: 3, problems: [expect.stringMatching(/^not valid JSON/)] },
      { lineNumber: 4, problems: [expect.stringMatching(/^email /)] },
    ]);
    expect(writtenItems().map((item) => item.id)).toEqual(['u-1', 'u-3']);
    expect(documentsMock).toHaveReceivedCommandWith(BatchWriteCommand, {
      RequestItems: {
        Users: [
          {
            PutRequest: { Item: expect.objectContaining({ pk: 'ORG#acme', sk: 'USER#u-1', organization_id: 'acme' }) },
          },
          expect.anything(),
        ],
      },
    });
  });

  it('commits the written records, and only those, as the digest of a new organization', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});

    await importUserLines({
      lines: linesOf([user('u-2', { country: 'Peru' }), user('u-1', { email: 'nope' }), user('u-3')]),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
    });

    const chunks = documentsMock.commandCalls(PutCommand).map((call) => decodeChunk(call.args[0].input.Item!.data));
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.sortKeys).toEqual(['2024-01-01T00:00:00.000Z#u-2', '2024-01-01T00:00:00.000Z#u-3']);
    expect(chunks[0]!.columns.country).toEqual({ values: ['Peru', null], codes: [0, 1] });
    expect(documentsMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { pk: 'ORG#acme', sk: 'USERDIGEST' },
      UpdateExpression: 'SET digest = :digest REMOVE writers.#me',
      ExpressionAttributeValues: expect.objectContaining({
        ':digest': expect.objectContaining({ version: 1, chunks: 1, rows: 2 }),
      }),
    });
  });

  it('leaves a record DynamoDB refuses out of the digest, and reports its line', async () => {
    documentsMock
      .on(BatchWriteCommand)
      .callsFake((input: { RequestItems: Record<string, Array<{ PutRequest: { Item: { id: string } } }>> }) => {
        if (input.RequestItems.Users!.some((request) => request.PutRequest.Item.id === 'u-2'))
          throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
            name: 'ValidationException',
          });
        return {};
      });
    const rejected: RejectedLine[] = [];

    const counts = await importUserLines({
      lines: linesOf([user('u-1'), user('u-2'), user('u-3')]),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
      onRejected: (rejection) => rejected.push(rejection),
    });

    expect(counts).toMatchObject({ imported: 2, rejected: 1, digest: 'merged' });
    expect(rejected).toEqual([
      { lineNumber: 2, problems: [expect.stringMatching(/^refused by DynamoDB: ValidationException/)] },
    ]);
    const chunk = decodeChunk(documentsMock.commandCalls(PutCommand)[0]!.args[0].input.Item!.data);
    expect(chunk.sortKeys).toEqual(['2024-01-01T00:00:00.000Z#u-1', '2024-01-01T00:00:00.000Z#u-3']);
  });

  it('writes 25 records per batch', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    const lines = Array.from({ length: 60 }, (_, i) => user(`u-${i}`));

    const counts = await importUserLines({
      lines: linesOf(lines),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
    });

    expect(counts.imported).toBe(60);
    expect(
      documentsMock
        .commandCalls(BatchWriteCommand)
        .map((call) => call.args[0].input.RequestItems!.Users!.length)
        .sort(),
    ).toEqual([10, 25, 25]);
  });

  it('keeps the last line of an id that occurs twice, and counts the repeat', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});

    const counts = await importUserLines({
      lines: linesOf([user('u-1', { name: 'first' }), user('u-2'), user('u-1', { name: 'last' })]),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
    });

    expect(counts).toEqual({ lines: 3, imported: 3, rejected: 0, duplicateIds: 1, digest: 'merged' });
    expect(writtenItems()).toEqual([
      expect.objectContaining({ id: 'u-1', name: 'last' }),
      expect.objectContaining({ id: 'u-2' }),
    ]);
  });

  it('stops with ImportAbortedError when the digest cannot be written, and leaves the writers at once', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    documentsMock.on(PutCommand).rejects(Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' }));

    const importing = importUserLines({
      lines: linesOf([user('u-1')]),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
    });

    await expect(importing).rejects.toMatchObject({ name: 'ImportAbortedError', counts: { imported: 1 } });
    expect(documentsMock).toHaveReceivedCommandWith(UpdateCommand, {
      Key: { pk: 'ORG#acme', sk: 'USERDIGEST' },
      UpdateExpression: 'REMOVE writers.#me',
    });
  });

  it('stops with ImportAbortedError, saying how far it got, when the table cannot be written', async () => {
    documentsMock
      .on(BatchWriteCommand)
      .rejects(Object.assign(new Error('Requested resource not found'), { name: 'ResourceNotFoundException' }));
    const lines = Array.from({ length: 30 }, (_, i) => user(`u-${i}`));

    const importing = importUserLines({
      lines: linesOf(lines),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
    });

    await expect(importing).rejects.toBeInstanceOf(ImportAbortedError);
    await expect(importing).rejects.toMatchObject({
      counts: { imported: 0 },
      message: expect.stringMatching(/Requested resource not found/),
    });
  });

  it('reports progress as lines are read and batches are stored', async () => {
    documentsMock.on(BatchWriteCommand).resolves({});
    const seen: number[] = [];

    await importUserLines({
      lines: linesOf([user('u-1'), user('u-2')]),
      orgId: 'acme',
      documents: documents(),
      tableName: 'Users',
      onProgress: (counts) => seen.push(counts.lines * 10 + counts.imported),
    });

    expect(seen).toEqual([10, 20, 22]);
  });
});

describe('createProgressReporter', () => {
  const recorder = (isTTY: boolean) => {
    const chunks: string[] = [];
    return { stream: { isTTY, write: (text: string) => chunks.push(text) }, chunks };
  };
  const counts = (lines: number) => ({ lines, imported: lines - 1, rejected: 1, duplicateIds: 0 });

  it('on a terminal, rewrites one line in place at most every interval, and keeps messages on their own lines', () => {
    let now = 0;
    const { stream, chunks } = recorder(true);
    const progress = createProgressReporter(stream, { now: () => now, intervalMs: 100 });

    now = 150;
    progress.update(counts(10));
    now = 200;
    progress.update(counts(11));
    progress.message('line 12: id: too long');
    progress.finish();

    expect(chunks).toEqual([
      '\r\u001b[2Kimporting: 10 lines read, 9 imported, 1 rejected',
      '\r\u001b[2K',
      'line 12: id: too long\n',
      'importing: 11 lines read, 10 imported, 1 rejected',
      '\r\u001b[2K',
    ]);
  });

  it('in a log, prints plain lines every interval and no control characters', () => {
    let now = 0;
    const { stream, chunks } = recorder(false);
    const progress = createProgressReporter(stream, { now: () => now });

    for (now = 0; now <= 12_000; now += 1_000) progress.update(counts(now / 100));
    progress.message('line 3: not valid JSON');
    progress.finish();

    expect(chunks).toEqual([
      'progress: 50 lines read, 49 imported, 1 rejected\n',
      'progress: 100 lines read, 99 imported, 1 rejected\n',
      'line 3: not valid JSON\n',
    ]);
  });
});
