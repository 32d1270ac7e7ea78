import { CustomResource, Duration, RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import {
  AccountRootPrincipal,
  ArnPrincipal,
  PolicyDocument,
  PolicyStatement,
  Role,
  ServicePrincipal,
} from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Provider } from 'aws-cdk-lib/custom-resources';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { reportSigningCertificatesFunction } from '#shared/config/api-routes.ts';
// Plain constants only: importing them does not pull pkijs into the CDK app.
import {
  reportSignerName,
  SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY,
  SIGNING_CERTIFICATES_OBJECT_KEY,
} from '#shared/adapters/signing/report-signer-name.ts';
import { REPORT_SIGNING_ALGORITHM } from '#shared/adapters/signing/report-signing-algorithm.ts';
import { ServiceFunction } from './service-function.ts';

export const REPORT_SIGNING_CERTIFICATES_TYPE = 'Custom::ReportSigningCertificates';

/**
 * What the key policy lets the account's administrators do: manage the key, never use it (no
 * `kms:Sign`, no `kms:GetPublicKey`) and never delegate it (no `kms:CreateGrant`), so no IAM policy
 * or grant can let anything but the two roles the policy names sign.
 */
export const KEY_ADMINISTRATION_ACTIONS = [
  'kms:DescribeKey',
  'kms:GetKeyPolicy',
  'kms:PutKeyPolicy',
  'kms:ListResourceTags',
  'kms:ListGrants',
  'kms:ListKeyPolicies',
  'kms:RevokeGrant',
  'kms:RetireGrant',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:EnableKey',
  'kms:DisableKey',
  'kms:UpdateKeyDescription',
  'kms:CreateAlias',
  'kms:DeleteAlias',
  'kms:UpdateAlias',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
];

export interface ReportSigningConstructProps {
  readonly stage: string;
  /** The report worker: the one function that signs reports. */
  readonly worker: LambdaFunction;
  /** The reports bucket: the certificates are published in it (`report-signing/certificates.pem`). */
  readonly bucket: Bucket;
  /** The operator's certificate for the key and its CA chain (PEM); without it the certificate is self-issued. */
  readonly operatorCertificates?: string | undefined;
  /** An RFC 3161 timestamp authority: the worker then signs PAdES B-T (`REPORT_TIMESTAMP_URL`). */
  readonly timestampUrl?: string | undefined;
}

/**
 * The stage's report signing keys and their certificates: the live key, and the sandbox's key
 * (docs/sandbox.md "Sandbox reports"), alike in every respect but its certificate's name, which
 * names the sandbox, and the bundle it is published to (`report-signing/sandbox-certificates.pem`),
 * so a sandbox report never verifies against the live certificates. Each key is an asymmetric KMS key
 * (`REPORT_SIGNING_ALGORITHM`: `RSA_2048`, `SIGN_VERIFY`) whose policy lets only the worker sign reports with it, and the
 * deploy-time certificate function sign the key's own certificate; administrators manage it but
 * cannot use it. A custom resource publishes the certificates to the reports bucket before the
 * worker is created or updated. The key is retained: it is not needed to verify old reports (their
 * certificates are), but deleting it by mistake would stop the stage signing.
 */
export class ReportSigningConstruct extends Construct {
  readonly key: Key;
  readonly sandboxKey: Key;
  readonly publisherFunction: ServiceFunction;
  readonly publisherProvider: Provider;
  readonly certificates: CustomResource;
  readonly sandboxCertificates: CustomResource;
  private readonly timestampUrl: string | undefined;
  private readonly bucket: Bucket;
  private readonly certificatesObjectKeys = [SIGNING_CERTIFICATES_OBJECT_KEY, SANDBOX_SIGNING_CERTIFICATES_OBJECT_KEY];
  private readonly certificatesObjectArns: string[];

  constructor(scope: Construct, id: string, props: ReportSigningConstructProps) {
    super(scope, id);
    const workerRole = props.worker.role;
    if (!workerRole) throw new Error(`${props.worker.node.path} has no role to let sign reports`);
    this.bucket = props.bucket;
    this.certificatesObjectArns = this.certificatesObjectKeys.map((key) => props.bucket.arnForObjects(key));

    this.publisherFunction = new ServiceFunction(this, reportSigningCertificatesFunction.name, {
      entry: reportSigningCertificatesFunction.entry,
      description: 'Deploy time: publishes the certificates of the report signing key to the reports bucket',
      timeout: Duration.minutes(1),
      // Run by CloudFormation during the deploy (its custom resource), never by traffic. What it reaches besides the
      // keys' policies below is its declared need (`reportSigningCertificates:publish`, grantPublishCertificates).
      liveAlias: false,
    });
    const publisherRole = this.publisherFunction.role!;

    const signs = (principal: string, sid: string) => [
      new PolicyStatement({
        sid: `${sid}Signs`,
        principals: [new ArnPrincipal(principal)],
        actions: ['kms:Sign'],
        resources: ['*'],
        conditions: { StringEquals: { 'kms:SigningAlgorithm': REPORT_SIGNING_ALGORITHM.kmsSigningAlgorithm } },
      }),
      new PolicyStatement({
        sid: `${sid}ReadsThePublicKey`,
        principals: [new ArnPrincipal(principal)],
        actions: ['kms:GetPublicKey'],
        resources: ['*'],
      }),
    ];
    const signingKey = (id: string, reports: string) =>
      new Key(this, id, {
        keySpec: KeySpec[REPORT_SIGNING_ALGORITHM.kmsKeySpec],
        keyUsage: KeyUsage.SIGN_VERIFY,
        description: `Signs the ${reports} of stage ${props.stage} (PAdES); only the report worker may sign with it`,
        removalPolicy: RemovalPolicy.RETAIN,
        policy: new PolicyDocument({
          statements: [
            new PolicyStatement({
              sid: 'AccountAdministersTheKey',
              principals: [new AccountRootPrincipal()],
              actions: KEY_ADMINISTRATION_ACTIONS,
              resources: ['*'],
            }),
            ...signs(workerRole.roleArn, 'ReportWorker'),
            // It signs the key's self-issued certificate at deploy (one Sign over the certificate's TBS part).
            ...signs(publisherRole.roleArn, 'CertificatePublisher'),
          ],
        }),
      });
    this.key = signingKey('Key', 'reports');
    this.sandboxKey = signingKey('SandboxKey', 'sandbox reports (never a screening result)');

    const providerLogs = new LogGroup(this, 'PublisherProviderLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const providerRole = new Role(this, 'PublisherProviderRole', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: 'Execution role of the report signing certificates provider framework',
    });
    providerLogs.grantWrite(providerRole);
    this.publisherProvider = new Provider(this, 'PublisherProvider', {
      onEventHandler: this.publisherFunction,
      logGroup: providerLogs,
      frameworkOnEventRole: providerRole,
    });
    const handlerLogicalId = Stack.of(this).getLogicalId(this.publisherFunction.node.defaultChild as CfnElement);
    NagSuppressions.addResourceSuppressions(
      providerRole,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'The CDK Provider framework invokes the certificate publisher by ARN; lambda:InvokeFunction is granted on that one function and its versions (Arn:*), nothing wider.',
          appliesTo: [`Resource::<${handlerLogicalId}.Arn>:*`],
        },
      ],
      true,
    );

    this.certificates = new CustomResource(this, 'Certificates', {
      serviceToken: this.publisherProvider.serviceToken,
      resourceType: REPORT_SIGNING_CERTIFICATES_TYPE,
      properties: {
        SignerName: reportSignerName(props.stage),
        OperatorCertificates: props.operatorCertificates ?? '',
        // A replaced key updates the resource, so the new key gets its certificate (the old ones stay listed).
        KeyArn: this.key.keyArn,
        // The first deploy of each month runs the publication again, which renews a certificate near its end.
        RenewalCheck: new Date().toISOString().slice(0, 7),
      },
    });
    // Always self-issued: an operator's CA certifies the live key, never one that signs test data.
    this.sandboxCertificates = new CustomResource(this, 'SandboxCertificates', {
      serviceToken: this.publisherProvider.serviceToken,
      resourceType: REPORT_SIGNING_CERTIFICATES_TYPE,
      properties: {
        Mode: 'sandbox',
        SignerName: reportSignerName(props.stage, 'sandbox'),
        OperatorCertificates: '',
        KeyArn: this.sandboxKey.keyArn,
        RenewalCheck: new Date().toISOString().slice(0, 7),
      },
    });

    this.timestampUrl = props.timestampUrl;
  }

  /**
   * Tells the worker (its `reportSigning` need) the keys it signs with and the timestamp authority, and lets it
   * read the certificates. The signing itself is allowed by the keys' policies, which name its role above: a key
   * policy is no grant a need can add to a role.
   */
  grantSigning(fn: LambdaFunction): void {
    fn.addEnvironment('REPORT_SIGNING_KEY_ID', this.key.keyArn);
    fn.addEnvironment('REPORT_SANDBOX_SIGNING_KEY_ID', this.sandboxKey.keyArn);
    if (this.timestampUrl) fn.addEnvironment('REPORT_TIMESTAMP_URL', this.timestampUrl);
    this.grantReadCertificates(fn);
  }

  /**
   * Lets the publisher (its `reportSigningCertificates:publish` need) read and write the two bundles and tells it the
   * keys and the bucket. Signing the keys' certificates is allowed by the keys' policies, which name its role above.
   */
  grantPublishCertificates(fn: LambdaFunction): void {
    fn.addEnvironment('REPORT_SIGNING_KEY_ID', this.key.keyArn);
    fn.addEnvironment('REPORT_SANDBOX_SIGNING_KEY_ID', this.sandboxKey.keyArn);
    fn.addEnvironment('REPORTS_BUCKET_NAME', this.bucket.bucketName);
    fn.addToRolePolicy(
      new PolicyStatement({ actions: ['s3:GetObject', 's3:PutObject'], resources: this.certificatesObjectArns }),
    );
    // Without ListBucket a missing object is AccessDenied, not NoSuchKey: the first publication could not tell.
    fn.addToRolePolicy(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [this.bucket.bucketArn],
        conditions: { StringEquals: { 's3:prefix': this.certificatesObjectKeys } },
      }),
    );
  }

  /**
   * Lets a function read the published certificates, live and sandbox (`s3:GetObject` on those two
   * objects, nothing else of the bucket), tells it the bucket, and creates it after the first
   * publication of both.
   */
  grantReadCertificates(fn: LambdaFunction): void {
    fn.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: this.certificatesObjectArns }));
    fn.addEnvironment('REPORTS_BUCKET_NAME', this.bucket.bucketName);
    // The worker starts signing, and the API listing, only once the keys' certificates are published.
    fn.node.addDependency(this.certificates, this.sandboxCertificates);
  }
}
