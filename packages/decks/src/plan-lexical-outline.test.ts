import { BUILT_IN_AUDIENCES } from '@xsb/weights';
import { describe, expect, it } from 'vitest';
import { planLexicalOutline } from './plan-lexical-outline';

// Text as @xsb/sources extracts an HTML page: no Markdown, headings as short lines, table rows as
// cells joined by " | ".
const EXTRACTED = `Coral bleaching explained: heat stress, Degree Heating Weeks and recovery

Reef-building corals live in a partnership with single-celled algae that live inside the tissue. The algae pass up to 90 percent of the sugars they make to their host coral.

Measuring heat stress

NOAA tracks heat stress on reefs with its Coral Reef Watch satellite programme every day and publishes it; the programme has run since 2000 and covers every reef in the tropics in five kilometre cells. One week at 2 degrees above the mean adds 2 Degree Heating Weeks to the total.

Alert level | DHW threshold | Reefs affected
Level 1 | 4 | 120
Level 2 | 8 | 64
Level 3 | 12 | 30
`;

describe('planLexicalOutline on extracted plain text', () => {
  it('takes the first line as the title and turns " | " rows into a native table and chart', () => {
    const outline = planLexicalOutline(EXTRACTED, { language: 'en', fallbackTitle: 'coral', maxSlides: 8 });
    expect(outline.title).toBe('Coral bleaching explained: heat stress, Degree Heating Weeks and recovery');
    expect(outline.slides.map((slide) => slide.title)).toContain('Measuring heat stress');
    const table = outline.slides.find((slide) => slide.table)?.table;
    expect(table).toEqual({
      columns: ['Alert level', 'DHW threshold', 'Reefs affected'],
      rows: [
        ['Level 1', '4', '120'],
        ['Level 2', '8', '64'],
        ['Level 3', '12', '30'],
      ],
    });
    expect(outline.slides.find((slide) => slide.chart)?.chart?.categories).toEqual([
      'Level 1',
      'Level 2',
      'Level 3',
    ]);
  });

  it('ends a long sentence at its last semicolon within the word limit instead of cutting it', () => {
    const outline = planLexicalOutline(EXTRACTED, { language: 'en', fallbackTitle: 'coral', maxSlides: 8 });
    const bullets = outline.slides.flatMap((slide) => slide.bullets);
    expect(bullets).toContain(
      'NOAA tracks heat stress on reefs with its Coral Reef Watch satellite programme every day and publishes it.',
    );
  });
});

// A small municipal report whose sections carry different cue-word themes; at six slides the planner
// must choose four of its six sections, so the audience decides which.
const PILOT_REPORT = `# Heat pump pilot in Riverton

## Background

District heating in Riverton was introduced in 1962, when the town founded its municipal energy office. The history of the network explains why most homes still burn gas today. The office was originally founded to run the coal plant that closed in 1998.

## Key concepts

A heat pump is a device that moves heat from outdoor air into the home using electricity. The coefficient of performance is the ratio of heat delivered to electricity consumed. Flow temperature is the temperature of the water sent to the radiators.

## Measurement method

Each home was tracked with a calibrated heat meter and an electricity sub-meter. Readings were measured every fifteen minutes and the seasonal factor was calculated per heating season. The estimation procedure follows the method of the national metering protocol.

## Results

Across both winters the pilot homes used 61 percent less final energy for heating than before. The median seasonal factor rose from 3.1 in the first winter to 3.4 in the second. Homes with insulation reached higher factors than homes without it.

## Costs

Households paid a fixed contribution of 2,500 euros and the grant funded the remaining cost. At the regional tariff the annual heating bill fell to 1,262 euros per home. The programme budget of 9 million euros was spent within the planned period.

## Recommendations

The office should set flow temperatures at or below 45 degrees at commissioning. It recommends combining heat pumps with wall insulation wherever walls allow it. Councils should plan substation upgrades street by street before conversion rates exceed a third.
`;

const profileOf = (id: string) => BUILT_IN_AUDIENCES.find((profile) => profile.id === id)!;
const conditioned = (id: string) =>
  planLexicalOutline(PILOT_REPORT, {
    language: 'en',
    fallbackTitle: 'pilot',
    maxSlides: 6,
    audienceId: id,
    audienceProfile: profileOf(id).description,
  });
const titles = (outline: { slides: Array<{ title: string }> }) => outline.slides.map((slide) => slide.title);

describe('planLexicalOutline conditioned on an audience', () => {
  it('gives decision makers costs, results and recommendations, and learners concepts and background', () => {
    const forDecisionMakers = titles(conditioned('decision_makers'));
    const forLearners = titles(conditioned('learners'));
    expect(forDecisionMakers).toEqual(expect.arrayContaining(['Results', 'Costs', 'Recommendations']));
    expect(forDecisionMakers).not.toContain('Background');
    expect(forDecisionMakers).not.toContain('Key concepts');
    expect(forLearners).toEqual(expect.arrayContaining(['Background', 'Key concepts']));
    expect(forLearners).not.toContain('Costs');
    const forSpecialists = titles(conditioned('specialists'));
    expect(forSpecialists).toEqual(expect.arrayContaining(['Measurement method', 'Results']));
    expect(forSpecialists).not.toContain('Background');
  });

  it('keeps the agnostic outline a balanced summary untouched by any audience', () => {
    const agnostic = planLexicalOutline(PILOT_REPORT, {
      language: 'en',
      fallbackTitle: 'pilot',
      maxSlides: 6,
    });
    expect(titles(agnostic)).not.toEqual(titles(conditioned('decision_makers')));
    expect(titles(agnostic)).not.toEqual(titles(conditioned('learners')));
    // the description alone (no id, no preferences) only nudges word scores, as before
    const descriptionOnly = planLexicalOutline(PILOT_REPORT, {
      language: 'en',
      fallbackTitle: 'pilot',
      maxSlides: 6,
      audienceProfile: 'A reader who wants the gist.',
    });
    expect(descriptionOnly.slides.length).toBe(agnostic.slides.length);
  });

  it('leaves out sentences the audience rates 0 and keeps the slide limit', () => {
    const outline = conditioned('decision_makers');
    const bullets = outline.slides.flatMap((slide) => slide.bullets).join('\n');
    // history is an avoided theme at level 1: utility 0 for decision makers
    expect(bullets).not.toMatch(/introduced in 1962|originally founded/);
    expect(outline.slides.length).toBeLessThanOrEqual(5);
  });

  it('is deterministic: the same inputs give a byte-identical outline', () => {
    expect(JSON.stringify(conditioned('specialists'))).toBe(JSON.stringify(conditioned('specialists')));
  });

  it('uses explicit preferences, and ignores a built-in id whose description was replaced', () => {
    const agnostic = planLexicalOutline(PILOT_REPORT, {
      language: 'en',
      fallbackTitle: 'pilot',
      maxSlides: 6,
    });
    const renamed = planLexicalOutline(PILOT_REPORT, {
      language: 'en',
      fallbackTitle: 'pilot',
      maxSlides: 6,
      audienceId: 'decision_makers',
      audienceProfile: 'Our board: people who read the summary page and nothing else.',
    });
    expect(titles(renamed)).toEqual(titles(agnostic));
    const explicit = planLexicalOutline(PILOT_REPORT, {
      language: 'en',
      fallbackTitle: 'pilot',
      maxSlides: 6,
      audienceId: 'someone',
      audienceProfile: 'Our board: people who read the summary page and nothing else.',
      audiencePreferences: profileOf('decision_makers').lexical!,
    });
    expect(titles(explicit)).toEqual(titles(conditioned('decision_makers')));
  });

  it('keeps the clause of a long sentence that the audience values more than the first', () => {
    const source = `# Raft

Raft is a consensus algorithm for managing a replicated log and keeping servers in step. Raft produces a result equivalent to Multi-Paxos and is as efficient, but it was designed first of all to be easy to understand: in a user study with 43 students at Stanford and Berkeley, 33 scored higher on a Raft quiz than on an equivalent Paxos quiz.
`;
    const bulletsOf = (outline: { slides: Array<{ bullets: string[] }> }) =>
      outline.slides.flatMap((slide) => slide.bullets);
    const agnostic = bulletsOf(planLexicalOutline(source, { language: 'en', fallbackTitle: 'raft' }));
    expect(agnostic).toContain(
      'Raft produces a result equivalent to Multi-Paxos and is as efficient, but it was designed first of all to be easy to understand.',
    );
    const forDecisionMakers = bulletsOf(
      planLexicalOutline(source, {
        language: 'en',
        fallbackTitle: 'raft',
        audienceId: 'decision_makers',
        audienceProfile: profileOf('decision_makers').description,
      }),
    );
    expect(forDecisionMakers).toContain(
      'In a user study with 43 students at Stanford and Berkeley, 33 scored higher on a Raft quiz than on an equivalent Paxos quiz.',
    );
  });

  it("takes the offline judge's modality step: a profile that prefers text values every sentence", () => {
    const plan = (preferredModalities: string[]) =>
      planLexicalOutline(PILOT_REPORT, {
        language: 'en',
        fallbackTitle: 'pilot',
        maxSlides: 6,
        audienceId: 'results_only',
        audienceProfile: 'Readers who care about results alone.',
        audiencePreferences: {
          levels: [0, 0, 0],
          preferredThemes: ['result'],
          avoidedThemes: [],
          preferredModalities,
        },
      });
    // Without the step only result sentences rate above 0; with it every (text) probe gains a step.
    expect(titles(plan([]))).toEqual(['Results']);
    expect(titles(plan(['text'])).length).toBeGreaterThan(1);
  });
});

// A textbook as unpdf reads it: sections in order, a formula's set-builder bar read as a table cell
// separator, TeX's ≠ as "6 =", a formula line and a figure label on lines of their own.
const TEXTBOOK = `Einführung in die Topologie

1.1 Produkte
Es seien X1 und X2 topologische Räume mit ihren offenen Mengen.
T = { U ⊆ X1 × X2 | U offen } ist eine Topologie auf X1 × X2.
B = { U1 × U2 | Ui offen in Xi } ist eine Basis dieser Topologie.

2.1 Mannigfaltigkeiten
Eine Mannigfaltigkeit ist ein topologischer Raum, der lokal wie ein euklidischer Raum aussieht.
Jede Mannigfaltigkeit ist lokal zusammenhängend und lokal kompakt in jedem Punkt.
Eine Karte ist ein Homöomorphismus von einer offenen Menge auf eine offene Teilmenge.
Mannigfaltigkeiten der Dimension zwei heißen auch Flächen in der Geometrie.

3.1 Überlagerungen
Ist f eine Decktransformation und f 6 = id, dann hat f keinen Fixpunkt auf Y.
Eine Überlagerung ist eine stetige surjektive Abbildung mit lokal trivialen Fasern.
Die Fasern einer Überlagerung haben überall dieselbe Mächtigkeit im Raum.
Die Decktransformationen einer Überlagerung bilden mit der Verkettung eine Gruppe.
Xi
Die universelle Überlagerung eines Raumes ist bis auf Isomorphie eindeutig bestimmt.
Da M zusammenhängend ist und M = Z︸︷︷︸
Jede Überlagerung eines einfach zusammenhängenden Raumes ist eine triviale Überlagerung.
`;

describe('planLexicalOutline on a textbook', () => {
  const outline = planLexicalOutline(TEXTBOOK, { language: 'de', fallbackTitle: 'topo', maxSlides: 8 });
  const titles = outline.slides.map((slide) => slide.title);
  const text = outline.slides.flatMap((slide) => [slide.title, ...slide.bullets]).join('\n');

  it('follows the order of the source', () => {
    const order = ['Mannigfaltigkeiten', 'Überlagerungen'].map((title) => titles.indexOf(title));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(titles.at(-1)).toBe('Das Wichtigste in Kürze');
  });

  it('places a table slide where its section stands, even when the section itself is not chosen', () => {
    const source = `Bericht

Zahlen
Jahr | Anlagen | Leistung
2021 | 4 | 120
2022 | 8 | 240
2023 | 12 | 360

Ausbau
Der Ausbau der Anlagen hat sich in drei Jahren verdreifacht und geht weiter.
Jede neue Anlage liefert im Mittel dreißig Kilowatt Leistung für das Netz.

Ausblick
Für die kommenden Jahre plant die Gemeinde zwölf weitere Anlagen im Ort.
Die Finanzierung der weiteren Anlagen ist durch den Haushalt gesichert.
`;
    const planned = planLexicalOutline(source, { language: 'de', fallbackTitle: 'bericht', maxSlides: 8 });
    expect(planned.slides.map((slide) => slide.title)).toEqual([
      'Zahlen: Kennzahlen',
      'Zahlen im Überblick',
      'Ausbau',
      'Ausblick',
    ]);
  });

  it('reads set-builder notation as prose, not as a table', () => {
    expect(outline.slides.some((slide) => slide.table || slide.chart)).toBe(false);
  });

  it('keeps glyph debris off the slides and formula lines and figure labels out of the titles', () => {
    expect(text).not.toContain('6 =');
    expect(text).toContain('Eine Überlagerung ist eine stetige surjektive Abbildung');
    expect(titles).not.toContain('Xi');
    expect(titles.some((title) => title.includes('='))).toBe(false);
  });
});
