import { describe, expect, it } from 'vitest';
import { detectSourceLanguage } from './detect-source-language';

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
});
