import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsSdkLogger } from '../observability/logger.ts';

/**
 * AWS clients are created once per cold start, at module scope of each function entry point.
 * Endpoints come from the SDK's own `AWS_ENDPOINT_URL_<SERVICE>` variables, so the local stack
 * points the same code at emulators without a code branch.
 */
export function createDynamoDbClients(): { client: DynamoDBClient; documents: DynamoDBDocumentClient } {
  const client = new DynamoDBClient({ logger: awsSdkLogger });
  const documents = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  return { client, documents };
}

/** The SQS client of the function that queues report jobs. */
export function createSqsClient(): SQSClient {
  return new SQSClient({ logger: awsSdkLogger });
}
