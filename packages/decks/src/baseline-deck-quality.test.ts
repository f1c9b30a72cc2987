import { existsSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir } from '@xsb/core/testing';
import { createJudge, offlineJudge } from '@xsb/llm';
import { type FakeLlmServer, fakeProviderEnv, startFakeLlmServer } from '@xsb/llm/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { generateBaselineDeck } from './generate-baseline-deck';
import { generateBaselineDeckFromSource } from './generate-decks-from-run-sheet';
import { loadSourceText } from './load-source-text';
import { normaliseText } from './near-duplicate-text';
import { readDeck } from './read-deck';
import type { DeckOutline } from './schemas/deck-outline';
import { presentableDeckViolations } from './testing-presentable-deck-rules';

// Sources in the six languages with scaffolding words; each repeats one sentence (as running heads
// and blind text do) and nearly repeats another.
const SOURCES: Record<string, string> = {
  en: `# Coral reefs under heat stress

## Why corals bleach
Reef-building corals live in a partnership with algae that live inside their tissue and feed them.
When the sea stays too warm for weeks, the corals expel the algae and turn white.
When the sea stays too warm for weeks, the corals expel the algae and turn white.
Bleached corals are not dead yet, but they starve without the sugars the algae make.

## Measuring heat stress
Satellites measure the sea surface temperature over every reef in the tropics each day.
One week at two degrees above the summer mean adds two degree heating weeks to the total.
One week at two degrees above the summer mean adds two degree heating weeks to the total!
Above eight degree heating weeks, severe bleaching and deaths are expected on most reefs.
Reefs that bleach every few years have no time to recover between the events.
A recovered reef needs about ten years to regrow the corals it lost.
Local protection from pollution and overfishing helps reefs recover faster after bleaching.
`,
  de: `# Korallenriffe unter Hitzestress

## Warum Korallen bleichen
Riffbildende Korallen leben in einer Partnerschaft mit Algen, die in ihrem Gewebe wohnen und sie ernähren.
Wenn das Meer wochenlang zu warm bleibt, stoßen die Korallen die Algen ab und werden weiß.
Wenn das Meer wochenlang zu warm bleibt, stoßen die Korallen die Algen ab und werden weiß.
Gebleichte Korallen sind noch nicht tot, aber sie hungern ohne den Zucker der Algen.

## Wie man Hitzestress misst
Satelliten messen jeden Tag die Temperatur der Meeresoberfläche über jedem Riff der Tropen.
Eine Woche mit zwei Grad über dem Sommermittel ergibt zwei Grad-Heizwochen in der Summe.
Oberhalb von acht Grad-Heizwochen sind schwere Bleiche und Absterben auf den meisten Riffen zu erwarten.
Riffe, die alle paar Jahre bleichen, haben zwischen den Ereignissen keine Zeit zur Erholung.
Ein erholtes Riff braucht etwa zehn Jahre, um die verlorenen Korallen nachwachsen zu lassen.
Schutz vor Abwässern und Überfischung hilft den Riffen, sich nach einer Bleiche schneller zu erholen.
`,
  fr: `# Les récifs coralliens face à la chaleur

## Pourquoi les coraux blanchissent
Les coraux bâtisseurs de récifs vivent en partenariat avec des algues qui habitent leurs tissus et les nourrissent.
Quand la mer reste trop chaude pendant des semaines, les coraux expulsent les algues et deviennent blancs.
Quand la mer reste trop chaude pendant des semaines, les coraux expulsent les algues et deviennent blancs.
Les coraux blanchis ne sont pas encore morts, mais ils meurent de faim sans les sucres des algues.

## Mesurer le stress thermique
Les satellites mesurent chaque jour la température de surface de la mer au-dessus de chaque récif tropical.
Une semaine à deux degrés au-dessus de la moyenne estivale ajoute deux semaines-degrés au total.
Au-delà de huit semaines-degrés, un blanchissement sévère et une forte mortalité sont attendus sur la plupart des récifs.
Les récifs qui blanchissent tous les deux ou trois ans n'ont pas le temps de se rétablir entre les épisodes.
Un récif rétabli a besoin d'environ dix ans pour refaire pousser les coraux qu'il a perdus.
La protection contre la pollution et la surpêche aide les récifs à se rétablir plus vite après un blanchissement.
`,
  es: `# Los arrecifes de coral bajo estrés térmico

## Por qué se blanquean los corales
Los corales que forman arrecifes viven en asociación con algas que habitan en sus tejidos y los alimentan.
Cuando el mar permanece demasiado caliente durante semanas, los corales expulsan las algas y se vuelven blancos.
Cuando el mar permanece demasiado caliente durante semanas, los corales expulsan las algas y se vuelven blancos.
Los corales blanqueados todavía no están muertos, pero pasan hambre sin los azúcares de las algas.

## Cómo se mide el estrés térmico
Los satélites miden cada día la temperatura de la superficie del mar sobre cada arrecife de los trópicos.
Una semana a dos grados por encima de la media del verano suma dos semanas-grado al total.
Por encima de ocho semanas-grado se esperan un blanqueamiento grave y una alta mortalidad en la mayoría de los arrecifes.
Los arrecifes que se blanquean cada pocos años no tienen tiempo de recuperarse entre los episodios.
Un arrecife recuperado necesita unos diez años para que vuelvan a crecer los corales que perdió.
La protección frente a la contaminación y la sobrepesca ayuda a los arrecifes a recuperarse antes.
`,
  zh: `# 高温压力下的珊瑚礁

## 珊瑚为什么会白化
造礁珊瑚与生活在其组织内的藻类共生，这些藻类为珊瑚提供养分。
当海水连续数周过热时，珊瑚会排出藻类并变成白色。
当海水连续数周过热时，珊瑚会排出藻类并变成白色。
白化的珊瑚还没有死亡，但失去藻类制造的糖分后会挨饿。

## 如何测量热压力
卫星每天测量热带地区每一处珊瑚礁上方的海面温度。
比夏季平均温度高两度的一周，会在总数中增加两个度热周。
超过八个度热周时，大多数珊瑚礁预计会出现严重白化和死亡。
每隔几年就白化一次的珊瑚礁，在两次事件之间没有时间恢复。
恢复后的珊瑚礁大约需要十年才能重新长出失去的珊瑚。
减少污染和过度捕捞的本地保护措施，可以帮助珊瑚礁在白化后更快恢复。
`,
  ja: `# 熱ストレスにさらされるサンゴ礁

## サンゴが白くなるわけ
サンゴは体の中にすむ小さな藻とくらしていて、藻がサンゴに栄養をあたえています。
海の水が何週間もあたたかすぎると、サンゴは藻を外に出してしまい、白くなります。
海の水が何週間もあたたかすぎると、サンゴは藻を外に出してしまい、白くなります。
白くなったサンゴはまだ死んではいませんが、藻がつくる糖がないのでおなかをすかせます。

## 熱ストレスのはかりかた
人工衛星は毎日、熱帯のすべてのサンゴ礁の上で海面の温度をはかっています。
夏の平均より二度高い週が一週間つづくと、合計に二つの度熱週がくわわります。
八つの度熱週をこえると、ほとんどのサンゴ礁でひどい白化と死が起きると考えられています。
数年ごとに白くなるサンゴ礁には、つぎの白化までに元にもどる時間がありません。
元にもどったサンゴ礁が失ったサンゴをそだてなおすには、およそ十年かかります。
よごれた水やとりすぎからまもると、サンゴ礁は白化のあとにはやく元にもどります。
`,
};

const EXPECTED_TAKEAWAYS: Record<string, string> = {
  en: 'Key takeaways',
  de: 'Das Wichtigste in Kürze',
  fr: 'À retenir',
  es: 'Ideas clave',
  zh: '要点总结',
  ja: 'まとめ',
};

const PROFILE = 'Students who need concepts and definitions explained simply.';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('xsb-baseline-quality-'));
});
afterEach(() => cleanup());

function allBullets(outline: DeckOutline): string[] {
  return outline.slides.flatMap((slide) => slide.bullets);
}

async function lexicalDeck(
  language: string,
  condition: 'audience_agnostic' | 'audience_conditioned',
  extra: { title?: string; scene?: string } = {},
) {
  const outputDeckPath = join(dir, `${language}-${condition}.pptx`);
  const result = await generateBaselineDeck(
    {
      caseLabel: `coral_${language}`,
      condition,
      audience: condition === 'audience_conditioned' ? 'learners' : 'all',
      ...(condition === 'audience_conditioned' ? { audienceProfile: PROFILE } : {}),
      sourceText: SOURCES[language]!,
      outputDeckPath,
      ...extra,
    },
    offlineJudge,
  );
  return { result, deck: await readDeck(outputDeckPath) };
}

describe('the baseline deck in the source language', () => {
  it.each(Object.keys(SOURCES))('%s: detects the language and adds words only in it', async (language) => {
    const { result, deck } = await lexicalDeck(language, 'audience_agnostic');
    expect(result.language).toBe(language);
    expect(deck.slides.map((slide) => slide.title)).toContain(EXPECTED_TAKEAWAYS[language]);
    const english = ['Key takeaways', 'Overview', 'More details', 'Key figures', 'For '];
    if (language !== 'en') {
      for (const word of english)
        expect(deck.slides.map((slide) => slide.visible_text).join('\n')).not.toContain(word);
    }
    expect(presentableDeckViolations(deck)).toEqual([]);
  });

  it.each(Object.keys(SOURCES))(
    '%s: the conditioned cover names the audience in the deck language',
    async (language) => {
      const { deck } = await lexicalDeck(language, 'audience_conditioned');
      const cover = deck.slides[0]!;
      const expected = {
        en: 'For learners',
        de: 'Für Lernende',
        fr: 'Pour les apprenants',
        es: 'Para estudiantes',
        zh: '面向学习者',
        ja: '学習者のみなさまへ',
      }[language];
      expect(cover.visible_text.split('\n')).toContain(expected);
      expect(presentableDeckViolations(deck)).toEqual([]);
    },
  );

  it.each(Object.keys(SOURCES))('%s: no bullet repeats or nearly copies another', async (language) => {
    for (const condition of ['audience_agnostic', 'audience_conditioned'] as const) {
      const { result } = await lexicalDeck(language, condition);
      const bullets = allBullets(result.outline).map(normaliseText);
      expect(new Set(bullets).size).toBe(bullets.length);
      expect(bullets.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('adds no words of its own to a source in a language it has none for, and the cover is not title-only', async () => {
    const dutch = `# Koraalriffen onder hittestress

Rifbouwende koralen leven samen met algen die in hun weefsel wonen en hen voeden met suikers.
Als de zee wekenlang te warm blijft, stoten de koralen de algen af en worden ze wit.
Gebleekte koralen zijn nog niet dood, maar zonder de suikers van de algen verhongeren ze langzaam.
Satellieten meten elke dag de temperatuur van het zeeoppervlak boven elk rif in de tropen.
`;
    const output = join(dir, 'nl.pptx');
    const result = await generateBaselineDeck(
      {
        caseLabel: 'coral_nl',
        condition: 'audience_agnostic',
        audience: 'all',
        sourceText: dutch,
        outputDeckPath: output,
      },
      offlineJudge,
    );
    expect(result.language).toBeUndefined();
    const deck = await readDeck(output);
    // The untitled section takes the deck title; no closing takeaways slide (it would need a title).
    expect(deck.slides.map((slide) => slide.title)).toEqual([
      'Koraalriffen onder hittestress',
      'Koraalriffen onder hittestress',
    ]);
    expect(deck.slides[0]!.visible_text.split('\n').length).toBeGreaterThan(1);
    expect(presentableDeckViolations(deck)).toEqual([]);
  });
});

describe('the baseline cover', () => {
  it('takes the title from the metadata and the scene as the agnostic subtitle', async () => {
    const { deck, result } = await lexicalDeck('en', 'audience_agnostic', {
      title: 'Heat stress on coral reefs',
      scene: 'science_outreach_talk',
    });
    expect(deck.slides[0]!.title).toBe('Heat stress on coral reefs');
    expect(deck.slides[0]!.visible_text).toBe('Heat stress on coral reefs\nScience outreach talk');
    expect(result.outline.subtitle).toBe('Science outreach talk');
  });

  it.each([
    ['en', 'Classroom lecture'],
    ['de', 'Vorlesung'],
    ['fr', 'Cours magistral'],
    ['es', 'Clase magistral'],
    ['zh', '课堂讲授'],
    ['ja', 'みんなで学ぶ講義'],
  ])('%s: names a known scene in the source language on the agnostic cover', async (language, expected) => {
    const { deck, result } = await lexicalDeck(language, 'audience_agnostic', { scene: 'classroom_lecture' });
    expect(result.outline.subtitle).toBe(expected);
    expect(deck.slides[0]!.visible_text.split('\n')).toEqual([deck.slides[0]!.title, expected]);
    expect(presentableDeckViolations(deck)).toEqual([]);
  });

  it('puts no English scene id on a German cover when the language has no name for it', async () => {
    const { deck, result } = await lexicalDeck('de', 'audience_agnostic', { scene: 'museum_night_tour' });
    expect(result.outline.subtitle).toBe('');
    expect(deck.slides[0]!.visible_text).not.toMatch(/museum|night|tour/i);
    // the cover lists the slide titles instead
    expect(deck.slides[0]!.visible_text.split('\n')).toContain('Das Wichtigste in Kürze');
  });

  it('lists the slide titles when the only subtitle would be in another script (an English scene on a Chinese deck)', async () => {
    const { deck } = await lexicalDeck('zh', 'audience_agnostic', { scene: 'museum_night_tour' });
    const cover = deck.slides[0]!;
    expect(cover.visible_text).not.toMatch(/museum/i);
    expect(cover.visible_text.split('\n').slice(1)).toEqual([
      '珊瑚为什么会白化',
      '如何测量热压力',
      '要点总结',
    ]);
    expect(presentableDeckViolations(deck)).toEqual([]);
  });

  it('reads the title and scene from source_metadata.json beside the source, and fails a broken one naming it', async () => {
    const caseDir = join(dir, 'case');
    await import('node:fs/promises').then(({ mkdir }) => mkdir(caseDir));
    await writeFile(join(caseDir, 'source.md'), SOURCES.de!);
    await writeFile(
      join(caseDir, 'source_metadata.json'),
      JSON.stringify({ title: 'Korallen im Hitzestress', scene: 'Vortrag an der Volkshochschule' }),
    );
    const out = join(dir, 'only', 'deck.pptx');
    const common = {
      sourceDocument: join(caseDir, 'source.md'),
      caseLabel: 'coral',
      condition: 'audience_agnostic' as const,
      audience: 'all',
      outputDeckPath: out,
      judge: offlineJudge,
      audienceProfiles: [],
    };
    await generateBaselineDeckFromSource(common);
    const deck = await readDeck(out);
    expect(deck.slides[0]!.visible_text).toBe('Korallen im Hitzestress\nVortrag an der Volkshochschule');
    // Without a deck folder nothing but the deck is written.
    expect(await readdir(join(dir, 'only'))).toEqual(['deck.pptx']);

    await writeFile(join(caseDir, 'source_metadata.json'), '{"title": 7}');
    await expect(generateBaselineDeckFromSource(common)).rejects.toThrow(/source_metadata\.json.*title/);
  });
});

describe('the lexical title of an extracted source without metadata', () => {
  const deckTitle = async (text: string) =>
    (
      await generateBaselineDeck(
        {
          caseLabel: 'the_case',
          condition: 'audience_agnostic',
          audience: 'all',
          sourceText: text,
          outputDeckPath: join(dir, 't.pptx'),
        },
        offlineJudge,
      )
    ).outline.title;
  const BODY =
    '\n\nVorwort\nDieses Skript wurde im Wintersemester von Martin Thoma geschrieben. Es beinhaltet die Mitschriften aus der Vorlesung.\nDas Skript ist kostenlos verfügbar und wird von vielen Studierenden gelesen.\n';

  it('joins a title broken over two lines ("Einführung in die / Geometrie und Topologie")', async () => {
    expect(
      await deckTitle(
        `Einführung in die\nGeometrie und Topologie\n0. Auflage, 31. Dezember 2016 Martin Thoma${BODY}`,
      ),
    ).toBe('Einführung in die Geometrie und Topologie');
  });

  it('takes no title from prose, a page of running text or a table of contents', async () => {
    expect(
      await deckTitle(
        `Hello, here is some text without a meaning. This text should show what a printed text\nwill look like at this place.${BODY}`,
      ),
    ).toBe('the_case');
    expect(
      await deckTitle(
        `Lorem ipsum dolor sit amet, consetetur sadipscing elitr, sed diam nonumy eirmod\ntempor invidunt ut labore et dolore magna aliquyam erat.${BODY}`,
      ),
    ).toBe('the_case');
    expect(await deckTitle(`Contents\n1 Foo 2\n2 Bar 2${BODY}`)).toBe('the_case');
  });

  it('fails a source without sentences with an InputError instead of a filler slide', async () => {
    await expect(deckTitle('Habibi\n\n1')).rejects.toThrow(/no sentences to build slides from/);
  });
});

const corpusGeoTopo = join(import.meta.dirname, '../../../../shared/corpus/pdf/GeoTopo-komprimiert.pdf');

describe.skipIf(!existsSync(corpusGeoTopo))('on a real German textbook (../shared/corpus)', () => {
  it('titles the deck with the whole title, writes German scaffolding and passes the layout rules', async () => {
    // Extracted once: 117 pages take a few seconds.
    const sourceText = await loadSourceText(corpusGeoTopo);
    for (const condition of ['audience_agnostic', 'audience_conditioned'] as const) {
      const out = join(dir, `geo-${condition}.pptx`);
      const result = await generateBaselineDeck(
        {
          caseLabel: 'geotopo',
          condition,
          audience: condition === 'audience_conditioned' ? 'learners' : 'all',
          ...(condition === 'audience_conditioned' ? { audienceProfile: PROFILE } : {}),
          sourceText,
          outputDeckPath: out,
        },
        offlineJudge,
      );
      expect(result.language).toBe('de');
      const deck = await readDeck(out);
      expect(deck.slides[0]!.title).toBe('Einführung in die Geometrie und Topologie');
      const text = deck.slides.map((slide) => slide.visible_text).join('\n');
      expect(text).not.toMatch(/Key takeaways|key figures|Overview/);
      expect(presentableDeckViolations(deck)).toEqual([]);
      const bullets = allBullets(result.outline).map(normaliseText);
      expect(new Set(bullets).size).toBe(bullets.length);
    }
  }, 60_000);
});

describe('the baseline with a model planner (real OpenAI SDK against the fake server)', () => {
  let server: FakeLlmServer;
  beforeAll(async () => {
    server = await startFakeLlmServer();
  });
  afterAll(() => server.close());

  it('asks for the source language, then drops repeated bullets and caps slides at six bullets', async () => {
    const outline = {
      title: 'Korallen',
      subtitle: '',
      slides: [
        {
          title: 'Warum Korallen bleichen',
          bullets: [
            'Korallen leben mit Algen zusammen.',
            'Korallen leben mit Algen zusammen!',
            'Wenn das Meer zu warm ist, stoßen Korallen die Algen ab.',
            'Gebleichte Korallen hungern ohne Zucker.',
            'Satelliten messen die Temperatur täglich.',
            'Acht Grad-Heizwochen bedeuten schwere Bleiche.',
            'Die Riffe erholen sich in zehn Jahren.',
            'Der Tourismus leidet unter der Bleiche.',
          ],
        },
        { title: 'Noch einmal', bullets: ['korallen leben mit algen zusammen'] },
      ],
    };
    server.setHandler(() => ({ text: JSON.stringify(outline) }));
    const client = createJudge('openai:gpt-test', { env: fakeProviderEnv(server) });
    const out = join(dir, 'llm.pptx');
    const result = await generateBaselineDeck(
      {
        caseLabel: 'coral',
        condition: 'audience_conditioned',
        audience: 'learners',
        audienceProfile: PROFILE,
        sourceText: SOURCES.de!,
        title: 'Korallen im Hitzestress',
        outputDeckPath: out,
      },
      client,
    );
    expect(server.requests.at(-1)?.text).toContain(
      'Write every title and bullet in German, the language of the source.',
    );
    // The model's own title stands; the metadata's would only replace an empty one.
    expect(result.outline.title).toBe('Korallen');
    expect(result.outline.subtitle).toBe('Für Lernende');
    expect(result.outline.slides).toHaveLength(1);
    expect(result.outline.slides[0]!.bullets).toHaveLength(6);
    expect(result.outline.slides[0]!.bullets.filter((bullet) => /^Korallen leben/.test(bullet))).toHaveLength(
      1,
    );
    expect(presentableDeckViolations(await readDeck(out))).toEqual([]);
  });
});
