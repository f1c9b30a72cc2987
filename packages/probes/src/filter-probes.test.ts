import { describe, expect, it } from 'vitest';
import { filterReasonFor, isCitationListProbe, isReferenceOnlyProbe } from './filter-probes';

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
