import type { Job, JobState, Queue } from 'bullmq';
import { eventually } from './eventually';

/**
 * Waits until the job `jobId` is in `state`, then reads the job (data, returnvalue) afresh.
 *
 * The order matters: a job read first and asked for its state afterwards can be a copy taken
 * while it was still active (returnvalue null) that reports 'completed' a moment later. Reading
 * the state first and the job after it gives a copy at least as new as that state; for a
 * finished state the copy must carry finishedOn (completed/failed are only left by a re-add).
 */
export function waitForJob(
  queue: Queue,
  jobId: string,
  state: JobState,
  what: string,
  accept: (job: Job) => boolean = () => true,
  ms = 45_000,
): Promise<Job> {
  return eventually(
    async () => {
      if ((await queue.getJobState(jobId)) !== state) return null;
      const job = await queue.getJob(jobId);
      if (!job) return null;
      if ((state === 'completed' || state === 'failed') && !job.finishedOn) return null;
      return accept(job) ? job : null;
    },
    what,
    ms,
  );
}
