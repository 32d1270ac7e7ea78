import { DeleteObjectsCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { reportObjectKey } from '#shared/domain/reports/report-job.ts';
import type { SandboxDataStore, SandboxKey } from '#shared/domain/sandbox/sandbox-wipe.ts';

/** S3's maximum of keys a ListObjectsV2 answers and a DeleteObjects takes. */
const KEYS_PER_PAGE = 1_000;

/** `reports/{key}/`: the folder of every report PDF the tenant's jobs stored (reportObjectKey). */
export const reportFolderOf = (key: string): string => reportObjectKey(key, '').slice(0, -'.pdf'.length);

/**
 * Every object under the sandbox's report folder, a page of 1,000 at a time. By folder rather
 * than by job, so a PDF whose job record is already gone (a run cut off between the two, a worker
 * that stored it as its job was wiped) is found too. The folder ends with `/`, so no other
 * tenant's folder starts with it.
 */
export function sandboxReportObjectsStore(s3: S3Client, bucketName: string): SandboxDataStore {
  return {
    name: 'reportObjects',
    async deletePage(key: SandboxKey) {
      const listed = await s3.send(
        new ListObjectsV2Command({ Bucket: bucketName, Prefix: reportFolderOf(key), MaxKeys: KEYS_PER_PAGE }),
      );
      const objects = (listed.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
      if (objects.length === 0) return 0;
      const deleted = await s3.send(
        new DeleteObjectsCommand({ Bucket: bucketName, Delete: { Objects: objects, Quiet: true } }),
      );
      const failed = deleted.Errors ?? [];
      if (failed.length > 0)
        throw new Error(`S3 kept ${failed.length} report object(s): ${failed[0]?.Code ?? 'unknown'}`);
      return objects.length;
    },
  };
}
