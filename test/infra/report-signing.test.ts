import { sign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { KEY_ADMINISTRATION_ACTIONS, REPORT_SIGNING_CERTIFICATES_TYPE } from '#lib/report-signing-construct.ts';
import type { ServiceStack } from '#lib/service-stack.ts';
import {
  reportSignerName,
  SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY,
  SIGNING_CERTIFICATES_OBJECT_KEY,
} from '#shared/adapters/signing/report-signer-name.ts';
import { issueSigningCertificate } from '#shared/adapters/signing/issue-signing-certificate.ts';
import { buildServiceStack, logicalIdOf } from './service-stack-fixture.ts';
import { actionsOf, resourcesOf, templateQueries, type Statement, wholeTemplateOf } from './template-queries.ts';
import { newReportSigningKeyPair } from '#shared/adapters/signing/report-signing-algorithm.ts';

let stack: ServiceStack;
let queries: ReturnType<typeof templateQueries>;

beforeAll(() => {
  ({ stack } = buildServiceStack({ bundle: false }));
  queries = templateQueries(wholeTemplateOf(stack));
});

/** The live key and the sandbox's: the same policy shape, each tested alike. */
const KEYS = { live: () => stack.reportSigning.key, sandbox: () => stack.reportSigning.sandboxKey } as const;
type KeyMode = keyof typeof KEYS;
const key = (mode: KeyMode = 'live') => queries.resources[logicalIdOf(KEYS[mode]())]!;
const keyStatements = (mode: KeyMode = 'live') =>
  key(mode).Properties.KeyPolicy.Statement as Array<Statement & { Sid: string }>;
const roleArnOf = (fn: { role?: unknown }) => ({
  'Fn::GetAtt': [logicalIdOf(fn.role as Parameters<typeof logicalIdOf>[0]), 'Arn'],
});
/** Whether a key policy action pattern (`kms:*`, `kms:Get*`) covers `action`. */
const covers = (pattern: string, action: string) =>
  new RegExp(`^${pattern.replaceAll('*', '.*')}$`, 'i').test(action) || pattern === '*';
const certificates = () => queries.ofType(REPORT_SIGNING_CERTIFICATES_TYPE).map(([, resource]) => resource);
const certificatesObject = () => `<${logicalIdOf(stack.reports.bucket)}.Arn>/${SIGNING_CERTIFICATES_OBJECT_KEY}`;
const sandboxCertificatesObject = () =>
  `<${logicalIdOf(stack.reports.bucket)}.Arn>/${SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY}`;

it('there are two report signing keys, the live one and the sandbox’s, apart', () => {
  expect(queries.ofType('AWS::KMS::Key').filter(([, k]) => k.Properties.KeySpec === 'RSA_2048')).toHaveLength(2);
  expect(logicalIdOf(stack.reportSigning.sandboxKey)).not.toBe(logicalIdOf(stack.reportSigning.key));
});

describe.each(['live', 'sandbox'] as const)('the %s report signing key', (mode) => {
  const key = () => queries.resources[logicalIdOf(KEYS[mode]())]!;
  const keyStatements = () => key().Properties.KeyPolicy.Statement as Array<Statement & { Sid: string }>;

  it('is an asymmetric RSA 2048 signing key (KMS prices its requests as symmetric ones), retained', () => {
    expect(key().Type).toBe('AWS::KMS::Key');
    expect(key().Properties).toMatchObject({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    expect(key().Properties.EnableKeyRotation).toBeUndefined();
    expect(key().DeletionPolicy).toBe('Retain');
  });

  it('lets only the worker sign reports, and the certificate publisher sign the key’s certificate; nobody else, not even the account', () => {
    const signers = keyStatements()
      .filter((statement) => statement.Effect === 'Allow')
      .filter((statement) => actionsOf(statement).some((action) => covers(action, 'kms:Sign')))
      .map((statement) => (statement.Principal as { AWS: unknown }).AWS);
    expect(signers).toEqual([roleArnOf(stack.reports.worker), roleArnOf(stack.reportSigning.publisherFunction)]);
    for (const statement of keyStatements().filter((s) => actionsOf(s).includes('kms:Sign')))
      expect(statement.Condition).toEqual({ StringEquals: { 'kms:SigningAlgorithm': 'RSASSA_PKCS1_V1_5_SHA_256' } });
  });

  it('gives the public key to the same two roles only', () => {
    const readers = keyStatements()
      .filter((statement) => actionsOf(statement).some((action) => covers(action, 'kms:GetPublicKey')))
      .map((statement) => (statement.Principal as { AWS: unknown }).AWS);
    expect(readers).toEqual([roleArnOf(stack.reports.worker), roleArnOf(stack.reportSigning.publisherFunction)]);
  });

  it('lets the account administer the key but not use or delegate it (no Sign, no grants, no wildcard)', () => {
    const [administration] = keyStatements().filter((statement) => statement.Sid === 'AccountAdministersTheKey');
    expect(actionsOf(administration!).sort()).toEqual([...KEY_ADMINISTRATION_ACTIONS].sort());
    for (const action of actionsOf(administration!)) {
      expect(action).not.toContain('*');
      expect(['kms:Sign', 'kms:GetPublicKey', 'kms:CreateGrant']).not.toContain(action);
    }
    // CloudFormation must be able to update the policy later (KMS's lockout check).
    expect(actionsOf(administration!)).toContain('kms:PutKeyPolicy');
  });

  it('is granted by no IAM policy: the key policy alone names who may use it', () => {
    const kmsStatements = queries
      .ofType('AWS::IAM::Policy')
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[])
      .filter((statement) => resourcesOf(statement).includes(`<${logicalIdOf(KEYS[mode]())}.Arn>`));
    expect(kmsStatements).toEqual([]);
  });

  it('is the worker’s key of its mode, and the worker reads the published certificates and nothing else of them', () => {
    const variable = mode === 'live' ? 'REPORT_SIGNING_KEY_ID' : 'REPORT_SANDBOX_SIGNING_KEY_ID';
    const keyArn = { 'Fn::GetAtt': [logicalIdOf(KEYS[mode]()), 'Arn'] };
    expect(queries.environmentOf(stack.reports.worker)[variable]).toEqual(keyArn);
    expect(queries.environmentOf(stack.reportSigning.publisherFunction)[variable]).toEqual(keyArn);
    const object = mode === 'live' ? certificatesObject() : sandboxCertificatesObject();
    const workerReads = queries
      .statementsFor(stack.reports.worker, 's3:')
      .filter((statement) => resourcesOf(statement).includes(object));
    expect(workerReads.flatMap(actionsOf)).toEqual(['s3:GetObject']);
  });
});

describe('the certificates endpoint (GET /v1/report-signing-certificates)', () => {
  const listing = () => stack.routeFunctions.get('ListReportSigningCertificates')!;

  it('may read the published certificates objects, live and sandbox, and nothing else of S3; nothing of KMS', () => {
    const s3 = queries.statementsFor(listing(), 's3:');
    expect(s3.map((statement) => [actionsOf(statement), resourcesOf(statement)])).toEqual([
      [['s3:GetObject'], [certificatesObject(), sandboxCertificatesObject()]],
    ]);
    expect(queries.statementsFor(listing(), 'kms:')).toEqual([]);
    expect(queries.environmentOf(listing()).REPORTS_BUCKET_NAME).toEqual({ Ref: logicalIdOf(stack.reports.bucket) });
    expect(queries.environmentOf(listing()).REPORT_SIGNING_KEY_ID).toBeUndefined();
    expect(queries.environmentOf(listing()).REPORT_SANDBOX_SIGNING_KEY_ID).toBeUndefined();
  });

  it('is not named by either key policy: it reads certificates, never a key', () => {
    const listingRole = JSON.stringify(roleArnOf(listing()));
    for (const mode of ['live', 'sandbox'] as const) {
      expect(
        keyStatements(mode).filter((statement) => JSON.stringify(statement.Principal).includes(listingRole)),
      ).toEqual([]);
    }
  });

  it('is created after the first publication of both bundles', () => {
    const fn = queries.resources[logicalIdOf(listing())]!;
    expect(fn.DependsOn).toContain(stack.getLogicalId(stack.reportSigning.certificates.node.defaultChild as never));
    expect(fn.DependsOn).toContain(
      stack.getLogicalId(stack.reportSigning.sandboxCertificates.node.defaultChild as never),
    );
  });
});

it('grants no function but the worker and the publisher either key, and no other function reads the sandbox key’s id', () => {
  const others = queries
    .ofType('AWS::Lambda::Function')
    .filter(
      ([id]) => id !== logicalIdOf(stack.reports.worker) && id !== logicalIdOf(stack.reportSigning.publisherFunction),
    )
    .filter(([, fn]) => 'REPORT_SANDBOX_SIGNING_KEY_ID' in ((fn.Properties.Environment?.Variables ?? {}) as object));
  expect(others).toEqual([]);
});

describe('the certificate resource', () => {
  it('is one custom resource per key: the live one naming the stage’s signer, the key and no operator certificate by default', () => {
    expect(certificates()).toHaveLength(2);
    expect(certificates()[0]!.Properties).not.toHaveProperty('Mode');
    expect(certificates()[0]!.Properties).toMatchObject({
      SignerName: reportSignerName('dev'),
      OperatorCertificates: '',
      KeyArn: { 'Fn::GetAtt': [logicalIdOf(stack.reportSigning.key), 'Arn'] },
    });
    expect(certificates()[0]!.Properties.RenewalCheck).toMatch(/^\d{4}-\d{2}$/);
  });

  it('publishes the sandbox key’s certificate apart, under a name that says sandbox, never the operator’s', () => {
    expect(certificates()[1]!.Properties).toMatchObject({
      Mode: 'sandbox',
      SignerName: reportSignerName('dev', 'sandbox'),
      OperatorCertificates: '',
      KeyArn: { 'Fn::GetAtt': [logicalIdOf(stack.reportSigning.sandboxKey), 'Arn'] },
    });
    expect(certificates()[1]!.Properties.SignerName).toContain('SANDBOX');
    expect(certificates()[1]!.Properties.ServiceToken).toEqual(certificates()[0]!.Properties.ServiceToken);
  });

  it('is published before the worker is created or updated', () => {
    const worker = queries.resources[logicalIdOf(stack.reports.worker)]!;
    expect(worker.DependsOn).toContain(stack.getLogicalId(stack.reportSigning.certificates.node.defaultChild as never));
    expect(worker.DependsOn).toContain(
      stack.getLogicalId(stack.reportSigning.sandboxCertificates.node.defaultChild as never),
    );
  });

  it('is served by the publisher, which may read and replace the two bundle objects and list nothing but them', () => {
    const statements = queries
      .statementsOf(stack.reportSigning.publisherFunction)
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:')));
    expect(statements.map((statement) => [actionsOf(statement).sort(), resourcesOf(statement)])).toEqual([
      [
        ['s3:GetObject', 's3:PutObject'],
        [certificatesObject(), sandboxCertificatesObject()],
      ],
      [['s3:ListBucket'], [`<${logicalIdOf(stack.reports.bucket)}.Arn>`]],
    ]);
    expect(statements[1]!.Condition).toEqual({
      StringEquals: { 's3:prefix': [SIGNING_CERTIFICATES_OBJECT_KEY, SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY] },
    });
    const serviceToken = certificates()[0]!.Properties.ServiceToken as { 'Fn::GetAtt': [string, string] };
    const framework = queries.resources[serviceToken['Fn::GetAtt'][0]]!;
    expect(framework.Properties.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack.reportSigning.publisherFunction), 'Arn'],
    });
  });

  it('carries the operator’s certificates given as context (literal \\n accepted), and refuses text that is not PEM', async () => {
    const keys = newReportSigningKeyPair();
    const { pem } = await issueSigningCertificate({
      commonName: 'Operator CA test',
      publicKeyDer: new Uint8Array(keys.publicKey.export({ type: 'spki', format: 'der' })),
      notBefore: new Date('2026-01-01T00:00:00Z'),
      notAfter: new Date('2028-01-01T00:00:00Z'),
      signSha256: (message) =>
        Promise.resolve(new Uint8Array(sign('sha256', message, { key: keys.privateKey, dsaEncoding: 'der' }))),
    });
    const { stack: withOperator } = buildServiceStack({
      bundle: false,
      context: { reportSigningCertificates: pem.replaceAll('\n', '\\n') },
    });
    const [resource, sandboxResource] = templateQueries(wholeTemplateOf(withOperator)).ofType(
      REPORT_SIGNING_CERTIFICATES_TYPE,
    );
    expect(resource![1].Properties.OperatorCertificates).toBe(pem);
    expect(sandboxResource![1].Properties.OperatorCertificates).toBe('');
    expect(() =>
      buildServiceStack({ bundle: false, context: { reportSigningCertificates: 'not a certificate' } }),
    ).toThrow(/reportSigningCertificates must be PEM certificates/);
  });
});

describe('the timestamp authority (context reportTimestampUrl, PAdES B-T)', () => {
  const workerVariables = (of: ServiceStack) =>
    templateQueries(wholeTemplateOf(of)).resources[logicalIdOf(of.reports.worker)]!.Properties.Environment
      .Variables as Record<string, unknown>;

  it('is given to the worker as REPORT_TIMESTAMP_URL, and to no other function', () => {
    const { stack: timestamped } = buildServiceStack({
      bundle: false,
      context: { reportTimestampUrl: 'https://timestamp.example.com/tsa' },
    });
    expect(workerVariables(timestamped).REPORT_TIMESTAMP_URL).toBe('https://timestamp.example.com/tsa');
    const others = templateQueries(wholeTemplateOf(timestamped))
      .ofType('AWS::Lambda::Function')
      .filter(([id]) => id !== logicalIdOf(timestamped.reports.worker))
      .filter(([, fn]) => 'REPORT_TIMESTAMP_URL' in ((fn.Properties.Environment?.Variables ?? {}) as object));
    expect(others).toEqual([]);
  });

  it('is absent without the context: the worker signs B-B', () => {
    expect(workerVariables(stack)).not.toHaveProperty('REPORT_TIMESTAMP_URL');
  });

  it('must be an https URL', () => {
    expect(() => buildServiceStack({ bundle: false, context: { reportTimestampUrl: 'not a url' } })).toThrow(
      /reportTimestampUrl must be a URL/,
    );
    expect(() =>
      buildServiceStack({ bundle: false, context: { reportTimestampUrl: 'http://timestamp.example.com/tsa' } }),
    ).toThrow(/reportTimestampUrl must use https/);
  });
});
