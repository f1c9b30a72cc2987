import { readDeck } from '@xsb/decks';
const d = await readDeck('/work/shared/corpus/pdf/GeoTopo-komprimiert.pdf');
console.log(d.slides[10].visible_text.slice(0, 1500));
console.log('----');
console.log(d.slides[10].elements.slice(0,8).map(e=>JSON.stringify(e)).join('\n'));
