import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import type { TableDefinition } from '#shared/config/table-definitions.ts';

/** A DynamoDB table built from its shared definition, which it keeps (grants read its index names and env var). */
export class ServiceTable extends Table {
  readonly definition: TableDefinition;

  constructor(scope: Construct, definition: TableDefinition) {
    super(scope, definition.id, {
      partitionKey: { name: definition.partitionKey, type: AttributeType.STRING },
      sortKey: definition.sortKey === undefined ? undefined : { name: definition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // A `cdk destroy` or a replacement never deletes the data: the table is retained and protected.
      deletionProtection: true,
      timeToLiveAttribute: definition.timeToLiveAttribute,
      encryption: TableEncryption.AWS_MANAGED,
      // Tokens, jobs and webhooks outlive a mistaken `cdk destroy`.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.definition = definition;
    for (const index of definition.globalSecondaryIndexes) {
      this.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: index.sortKey === undefined ? undefined : { name: index.sortKey, type: AttributeType.STRING },
        ...(index.include
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.include] }
          : { projectionType: ProjectionType.ALL }),
      });
    }
  }

  get indexNames(): readonly string[] {
    return this.definition.globalSecondaryIndexes.map((index) => index.indexName);
  }
}
