import { deduplicateProbes } from '../src/deduplicate-probes';
import { makeSyntheticProbes, seededRandom } from '../src/testing';
const r = seededRandom(7);
const bank = makeSyntheticProbes(20000, 3).map((p) => ({ ...p, answer: String(1990 + Math.floor(r() * 35)) }));
const t = performance.now();
const res = deduplicateProbes(bank);
console.log('common answers', res.kept.length, ((performance.now() - t) / 1000).toFixed(2), 's');
