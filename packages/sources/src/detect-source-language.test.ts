import { describe, expect, it } from 'vitest';
import {
  detectSourceLanguage,
  isLanguageDetectorRunning,
  LANGUAGE_DETECTOR_IDLE_MS,
  stopLanguageDetector,
} from './detect-source-language';

const RAFT =
  'Raft elects a leader that replicates its log to the other servers of the cluster before it commits an entry.';

describe('detectSourceLanguage (eld)', () => {
  it.each([
    [
      'en',
      'Raft elects a leader that replicates its log to the other servers of the cluster before it commits an entry.',
    ],
    [
      'de',
      'Die Topologie untersucht Eigenschaften geometrischer Objekte, die unter stetigen Verformungen erhalten bleiben.',
    ],
    [
      'fr',
      'La chaleur marine provoque le blanchissement des coraux, qui perdent les algues dont ils se nourrissent.',
    ],
    [
      'es',
      'El blanqueamiento de los corales ocurre cuando el agua del mar se calienta durante varias semanas seguidas.',
    ],
    ['zh', '珊瑚白化是指珊瑚在高温压力下排出共生藻类，从而失去颜色的现象。海水温度持续升高是主要原因。'],
    [
      'ja',
      'サンゴの白化とは、海水温の上昇によってサンゴが共生藻を失い、白く見える現象です。回復には数年かかります。',
    ],
  ])('%s', async (language, text) => {
    expect(await detectSourceLanguage(text)).toBe(language);
  });

  it('gives no language for text too short to tell, or without letters', async () => {
    expect(await detectSourceLanguage('Hallo Welt')).toBeUndefined();
    expect(
      await detectSourceLanguage('1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 = 210'),
    ).toBeUndefined();
  });

  it('reads windows spread over a long text, so an English front page does not decide a German book', async () => {
    const english =
      'This thesis was submitted to the faculty of mathematics in partial fulfilment of the degree. '.repeat(
        40,
      );
    const german =
      'Ein topologischer Raum ist ein Paar aus einer Menge und einer Familie offener Teilmengen. '.repeat(
        400,
      );
    expect(await detectSourceLanguage(english + german)).toBe('de');
  });

  it('holds eld in a thread that ends when asked to, once the detections under way are answered', async () => {
    await stopLanguageDetector();
    expect(isLanguageDetectorRunning()).toBe(false);
    const detections = [detectSourceLanguage(RAFT), detectSourceLanguage(RAFT)];
    expect(isLanguageDetectorRunning()).toBe(true);
    const stopped = stopLanguageDetector();
    expect(await Promise.all(detections)).toEqual(['en', 'en']);
    await stopped;
    expect(isLanguageDetectorRunning()).toBe(false);
    // A later detection starts it again.
    expect(await detectSourceLanguage(RAFT)).toBe('en');
    expect(isLanguageDetectorRunning()).toBe(true);
    await stopLanguageDetector();
  });

  it('ends the thread by itself after its idle time, and keeps it while detections follow each other', async () => {
    expect(await detectSourceLanguage(RAFT)).toBe('en');
    await new Promise((resolve) => setTimeout(resolve, LANGUAGE_DETECTOR_IDLE_MS / 2));
    expect(await detectSourceLanguage(RAFT)).toBe('en');
    await new Promise((resolve) => setTimeout(resolve, LANGUAGE_DETECTOR_IDLE_MS / 4));
    expect(isLanguageDetectorRunning()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, LANGUAGE_DETECTOR_IDLE_MS + 500));
    expect(isLanguageDetectorRunning()).toBe(false);
  });
});
