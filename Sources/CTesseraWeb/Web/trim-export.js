// Clip exports: POST /video/{id}/trim starts a job on the server, GET /jobs/{id} is polled until it
// is done or failed, and the clip is then at the job's download URL.

/** Between two polls of a job: often enough for the progress bar to move smoothly, rarely
 * enough to cost the server nothing next to the export itself. */
const POLL_INTERVAL_MS = 250;

/** An export that did not produce a clip, with a message fit for the page. */
export class ExportError extends Error {}

const sleep = (milliseconds) => new Promise((resolve) => { setTimeout(resolve, milliseconds); });

/** The one-line text the server sends with an error status, or the status text. */
async function reason(response) {
  const text = (await response.text()).trim();
  return text || `${response.status} ${response.statusText}`;
}

/**
 * Exports `from`…`to` seconds of the video at `videoURL` (/video/{id}).
 * @param {{videoURL: string, from: number, to: number, exact: boolean,
 *   onProgress: (state: 'queued'|'running', fraction: number) => void}} order
 * @returns {Promise<{id: string, result: {requestedStart: number, start: number, end: number,
 *   duration: number}, download: string}>} the finished job.
 * @throws {ExportError} when the server refuses the export, the job fails or disappears.
 */
export async function exportClip({ videoURL, from, to, exact, onProgress }) {
  const started = await fetch(`${videoURL}/trim`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ from, to, exact }),
  });
  if (started.status === 503) throw new ExportError(`The server is busy with other exports; try again in a moment. (${await reason(started)})`);
  if (!started.ok) throw new ExportError(`The server refused the export: ${await reason(started)}`);
  const job = await started.json();
  const jobURL = started.headers.get('Location') ?? job.url;
  onProgress('queued', 0);
  for (;;) {
    const polled = await fetch(jobURL, { cache: 'no-store' });
    if (polled.status === 404) throw new ExportError('The export was lost on the server (it expired or the server restarted).');
    if (!polled.ok) throw new ExportError(`Could not follow the export: ${await reason(polled)}`);
    const status = await polled.json();
    if (status.state === 'done') return { id: status.id, result: status.result, download: status.download ?? `${jobURL}/result` };
    if (status.state === 'failed') throw new ExportError(`The export failed: ${status.error ?? 'no reason given'}`);
    onProgress(status.state, status.progress);
    await sleep(POLL_INTERVAL_MS);
  }
}
