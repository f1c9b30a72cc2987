import { Worker } from 'node:worker_threads';

/** Texts with fewer letters than this are not given a language: n-gram detectors guess on them. */
const MIN_LETTERS = 40;
const WINDOWS = 4;
const WINDOW_CHARS = 4000;
export const LANGUAGE_DETECTOR_IDLE_MS = 1000;

interface WindowLanguage {
  language: string;
  reliable: boolean;
}

// Plain JavaScript: it runs without the TypeScript loader in the source tree and in `dist` alike.
const DETECTOR_PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const loaded = import(workerData.eldUrl).then((module) => module.eld);
parentPort.on('message', ({ id, windows }) => {
  loaded.then(
    (eld) => parentPort.postMessage({
      id,
      results: windows.map((text) => {
        const result = eld.detect(text);
        return { language: result.language, reliable: result.isReliable() };
      }),
    }),
    (error) => parentPort.postMessage({ id, error: String((error && error.stack) || error) }),
  );
});
`;

interface Pending {
  resolve: (results: WindowLanguage[]) => void;
  reject: (error: Error) => void;
}

/**
 * eld's n-gram database stays ~50 MB of live heap while loaded, and a module in the main thread is never
 * released: in a worker thread that ends when idle, the later stages of the process do not carry it.
 */
class DetectorThread {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private ended = false;
  private stopWhenIdle = false;

  constructor(private readonly onEnd: (thread: DetectorThread) => void) {
    this.worker = new Worker(DETECTOR_PROGRAM, {
      eval: true,
      workerData: { eldUrl: import.meta.resolve('eld/small') },
    });
    this.worker.on('message', (message: { id: number; results?: WindowLanguage[]; error?: string }) => {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.results) pending.resolve(message.results);
      else pending.reject(new Error(`language detection failed: ${message.error}`));
      this.settle();
    });
    this.worker.on('error', (error) => this.end(error));
    this.worker.on('exit', (code) => this.end(new Error(`the language detector thread exited (${code})`)));
  }

  detect(windows: string[]): Promise<WindowLanguage[]> {
    clearTimeout(this.idleTimer);
    // Referenced while a detection is under way (a script awaiting it must not exit), not when idle.
    this.worker.ref();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, windows });
    });
  }

  async stop(): Promise<void> {
    if (this.pending.size > 0) {
      this.stopWhenIdle = true;
      await new Promise((resolve) => this.worker.once('exit', resolve));
      return;
    }
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.idleTimer);
    this.onEnd(this);
    await this.worker.terminate();
  }

  private settle(): void {
    if (this.pending.size > 0) return;
    if (this.stopWhenIdle) {
      void this.stop();
      return;
    }
    this.worker.unref();
    this.idleTimer = setTimeout(() => void this.stop(), LANGUAGE_DETECTOR_IDLE_MS);
    this.idleTimer.unref();
  }

  private end(error: Error): void {
    if (!this.ended) {
      this.ended = true;
      clearTimeout(this.idleTimer);
      this.onEnd(this);
    }
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}

let thread: DetectorThread | undefined;

function detectorThread(): DetectorThread {
  thread ??= new DetectorThread((ended) => {
    if (thread === ended) thread = undefined;
  });
  return thread;
}

export function isLanguageDetectorRunning(): boolean {
  return thread !== undefined;
}

/** Ends the thread once the detections under way are answered, not after its idle time. */
export async function stopLanguageDetector(): Promise<void> {
  await thread?.stop();
}

/** Evenly spread windows: a long source costs milliseconds, and front matter does not decide alone. */
function sampleWindows(text: string): string[] {
  if (text.length <= WINDOWS * WINDOW_CHARS) return [text];
  const step = (text.length - WINDOW_CHARS) / (WINDOWS - 1);
  return Array.from({ length: WINDOWS }, (_, index) => {
    const start = Math.round(index * step);
    return text.slice(start, start + WINDOW_CHARS);
  });
}

/** ISO 639-1 code by majority of windows, or `undefined` for a short text, an unreliable answer or a tie. */
export async function detectSourceLanguage(text: string): Promise<string | undefined> {
  const windows = sampleWindows(text).filter(
    (window) => (window.match(/\p{L}/gu)?.length ?? 0) >= MIN_LETTERS,
  );
  if (windows.length === 0) return undefined;
  const votes = new Map<string, number>();
  for (const result of await detectorThread().detect(windows))
    if (result.language && result.reliable) votes.set(result.language, (votes.get(result.language) ?? 0) + 1);
  const ranked = [...votes].sort((a, b) => b[1] - a[1]);
  const [best, second] = ranked;
  if (!best || (second && second[1] === best[1])) return undefined;
  return best[0];
}
