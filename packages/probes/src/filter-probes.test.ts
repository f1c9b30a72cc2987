import { describe, expect, it } from 'vitest';
import {
  filterReasonFor,
  isBibliographyEntryProbe,
  isCitationListProbe,
  isCreditLineProbe,
  isDoiProbe,
  isIsbnProbe,
  isReferenceOnlyProbe,
  isUrlProbe,
} from './filter-probes';

const probe = (
  question: string,
  answer: string,
  evidence: string[] = ['The rate rose to 42 percent in 2020.'],
) => ({
  question,
  answer,
  evidence: evidence.map((text) => ({ text })),
});

describe('isCitationListProbe', () => {
  it('catches questions about references, citations and the bibliography', () => {
    expect(
      isCitationListProbe(probe('Which works are cited for the transformer design?', 'Vaswani et al.')),
    ).toBe(true);
    expect(isCitationListProbe(probe('What does the bibliography list first?', 'A survey'))).toBe(true);
    expect(isCitationListProbe(probe('How many references does the paper include?', '52'))).toBe(true);
  });

  it('catches probes whose evidence is bibliography entries', () => {
    const entries = [
      '[12] A. Smith and B. Jones. Learning to rank. In Proceedings of SIGIR, pp. 33-40, 2019.',
      'Lee, K. et al., 2021. Dense retrieval. arXiv:2104.08663.',
    ];
    expect(isCitationListProbe(probe('What is learning to rank about?', 'ranking', entries))).toBe(true);
    expect(isCitationListProbe(probe('What is the DOI?', 'x', ['Available at doi:10.1145/3331184.']))).toBe(
      true,
    );
  });

  it('keeps ordinary content probes', () => {
    expect(isCitationListProbe(probe('What rate was reached in 2020?', '42 percent'))).toBe(false);
    expect(isCitationListProbe(probe('What does the term recall refer to?', 'found relevant items'))).toBe(
      false,
    );
  });
});

describe('isReferenceOnlyProbe', () => {
  it('catches answers that are only pointers into the document', () => {
    expect(isReferenceOnlyProbe(probe('Where is the ablation shown?', 'Figure 3'))).toBe(true);
    expect(isReferenceOnlyProbe(probe('Where are the results?', 'In Table 2 and Section 4.1.'))).toBe(true);
    expect(isReferenceOnlyProbe(probe('Which source supports it?', '[12], [14]'))).toBe(true);
    expect(isReferenceOnlyProbe(probe('Where is it described?', 'See page 7 of the paper'))).toBe(true);
  });

  it('catches questions asking what a numbered element shows', () => {
    expect(isReferenceOnlyProbe(probe('What does Figure 3 show?', 'The loss curve drops'))).toBe(true);
    expect(isReferenceOnlyProbe(probe('What is presented in Table 2?', 'Accuracy numbers'))).toBe(true);
    expect(isReferenceOnlyProbe(probe('What accuracy is reported in Table 2?', '91 percent'))).toBe(false);
    expect(isReferenceOnlyProbe(probe('Which table lists the hyperparameters?', 'Table 4'))).toBe(true);
  });

  it('keeps answers with content beside a pointer', () => {
    expect(isReferenceOnlyProbe(probe('What accuracy was reached?', '91% (Table 2)'))).toBe(false);
    expect(isReferenceOnlyProbe(probe('Which model wins?', 'The sparse model, as Figure 3 shows'))).toBe(
      false,
    );
  });
});

describe('filterReasonFor', () => {
  it('names the first failed filter and null for a clean probe', () => {
    expect(filterReasonFor(probe('Which papers are cited?', 'Figure 2'))).toBe('citation_list');
    expect(filterReasonFor(probe('Where is it?', 'Figure 2'))).toBe('reference_only');
    expect(filterReasonFor(probe('What rate was reached?', '42 percent'))).toBeNull();
  });
});

describe('URL, DOI, ISBN, credit-line and bibliography-entry filters', () => {
  // Sentences of the German textbook's picture credits and footnotes (GeoTopo-komprimiert.pdf).
  const credit = '3.3b 3 Pfade auf Torus: Charles Staats, tex.stackexchange.com/a/149991/5645 Abb.';
  const cloze = (sentence: string, answer: string) =>
    probe(`Fill in the blank: "${sentence.replace(answer, '____')}"`, answer, [sentence]);

  it('filters a cloze whose sentence holds a URL, even when the blank is elsewhere', () => {
    expect(isUrlProbe(cloze(credit, '5645'))).toBe(true);
    expect(isUrlProbe(cloze(credit, 'Charles Staats'))).toBe(true);
    expect(isUrlProbe(probe('Where is the code?', 'https://github.com/org/repo'))).toBe(true);
    expect(isUrlProbe(probe('Where is it?', 'www.example.org'))).toBe(true);
    expect(filterReasonFor(cloze(credit, '5645'))).toBe('url');
    // A dotted version or a decimal is no web address.
    expect(isUrlProbe(probe('Which version?', 'version 2.4.1 of the model'))).toBe(false);
  });

  it('filters DOIs and ISBNs, named or bare', () => {
    expect(isDoiProbe(probe('What is the identifier?', '10.1145/3331184.3331190'))).toBe(true);
    expect(filterReasonFor(probe('What is the identifier?', '10.1145/3331184.3331190'))).toBe('doi');
    const isbn =
      'Eine Einführung“ von R. Stöcker und H. Zieschang auf S. 301f (ISBN 978-3519122265) nachgelesen werden.';
    expect(isIsbnProbe(cloze(isbn, '3519122265'))).toBe(true);
    expect(isIsbnProbe(probe('Which number?', '978-3-11-022458-0'))).toBe(true);
    expect(filterReasonFor(cloze(isbn, '3519122265'))).toBe('isbn');
    expect(isIsbnProbe(probe('How many homes?', '412 homes'))).toBe(false);
  });

  it('filters image credits and licence lines in English and German', () => {
    for (const line of [
      'Image credit: NASA/JPL-Caltech, used with permission of the mission team.',
      'Bildquelle: Wikimedia Commons, Nutzer Jim.belk, Datei Tricoloring.',
      'Quelle: Statistisches Bundesamt, Tabelle der Wärmepumpen im Bestand.',
      '© 2021 Riverton Energy Office, all rights reserved for the figures.',
      'The diagram is licensed under CC BY-SA 4.0 by its original author.',
    ])
      expect(filterReasonFor(probe(`Fill in the blank: "${line}"`, 'x', [line])), line).toBe('credit_line');
    expect(isCreditLineProbe(probe('What rate was reached in 2020?', '42 percent'))).toBe(false);
  });

  it('filters bibliography entries with their own reason, apart from questions about citations', () => {
    const entry =
      'Er kann in „Elementare Differentialgeometrie“ von Christian Bär (2. Auflage) nachgelesen werden.';
    expect(isBibliographyEntryProbe(cloze(entry, 'Christian Bär'))).toBe(true);
    expect(filterReasonFor(cloze(entry, 'Christian Bär'))).toBe('bibliography_entry');
    const references = ['[12] A. Smith and B. Jones. Learning to rank. In Proceedings of SIGIR, pp. 33-40.'];
    expect(filterReasonFor(probe('What is learning to rank about?', 'ranking', references))).toBe(
      'bibliography_entry',
    );
    expect(filterReasonFor(probe('Which papers are cited?', 'Smith and Jones'))).toBe('citation_list');
  });

  it('treats the blanked number of a remark, figure or section as a reference', () => {
    expect(
      filterReasonFor(probe('Ergänzen Sie die Lücke: „Nach Bemerkung ____ ist K abgeschlossen.“', '21')),
    ).toBe('reference_only');
    expect(filterReasonFor(probe('Fill in the blank: "As Figure ____ shows, loss drops."', '3'))).toBe(
      'reference_only',
    );
    expect(filterReasonFor(probe('Fill in the blank: "The loss fell by ____ percent."', '12'))).toBeNull();
  });
});
