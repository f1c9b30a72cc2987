/**
 * Rebuilds fixtures/decks/ from fixtures/sources/ (run from the repo root with
 * `node --import tsx packages/decks/scripts/build-deck-fixtures.ts`; the PDF needs LibreOffice).
 * - cs_raft_consensus.baseline.pptx: the lexical xsb-baseline deck for learners.
 * - notebooklm/cs_raft_consensus.pdf: a hand-written "external" deck about the same source, exported
 *   to PDF the way NotebookLM delivers decks, for the import demo.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { planLexicalOutline } from '../src/plan-lexical-outline';
import { convertPptxToPdf } from '../src/render-deck';
import type { DeckOutline } from '../src/schemas/deck-outline';
import { writeOutlinePptx } from '../src/write-outline-pptx';

const root = resolve(import.meta.dirname, '../../..');
const source = await readFile(join(root, 'fixtures/sources/cs_raft_consensus/source.md'), 'utf8');

const baseline = planLexicalOutline(source, {
  fallbackTitle: 'cs_raft_consensus',
  audienceProfile:
    'Students and newcomers who want to understand the topic: key concepts, definitions and examples.',
  subtitle: 'For learners',
  maxSlides: 8,
});
await writeOutlinePptx(baseline, join(root, 'fixtures/decks/cs_raft_consensus.baseline.pptx'));

const external: DeckOutline = {
  title: 'Raft in five minutes',
  subtitle: 'How a cluster agrees on one log',
  slides: [
    {
      title: 'What Raft is for',
      bullets: [
        'Raft keeps a replicated log identical on every server of a cluster.',
        'Ongaro and Ousterhout introduced it at USENIX ATC 2014.',
        'In a study, 33 of 43 students scored higher on Raft than on Paxos.',
      ],
    },
    {
      title: 'Majorities make progress',
      bullets: [
        'Every decision needs a majority of servers.',
        'Five servers tolerate the failure of any two.',
        'Production clusters usually run three or five voting members.',
      ],
    },
    {
      title: 'Electing a leader',
      bullets: [
        'Time is divided into numbered terms; each term has at most one leader.',
        'A follower that hears no heartbeat within its election timeout becomes a candidate.',
        'Random timeouts of 150 to 300 ms make split votes rare.',
      ],
    },
    {
      title: 'Replicating the log',
      bullets: [
        'The leader appends client commands and sends AppendEntries RPCs.',
        'An entry is committed once a majority of servers store it.',
      ],
    },
    {
      title: 'Where Raft runs today',
      bullets: [],
      table: {
        columns: ['System', 'Use'],
        rows: [
          ['etcd', 'Key-value store behind Kubernetes'],
          ['HashiCorp Consul', 'Service discovery and configuration'],
          ['CockroachDB, TiKV', 'One Raft group per key range'],
        ],
      },
    },
  ],
};
const work = await mkdtemp(join(tmpdir(), 'xsb-fixture-'));
try {
  const pptx = join(work, 'external.pptx');
  await writeOutlinePptx(external, pptx);
  await convertPptxToPdf(pptx, join(root, 'fixtures/decks/notebooklm/cs_raft_consensus.pdf'));
} finally {
  await rm(work, { recursive: true, force: true });
}
console.log('fixtures/decks rebuilt');
