/** Never sets innerHTML (only classes, `hidden`, `open`), so text from decks and judges stays text. */
export const REPORT_SCRIPT = `(() => {
  'use strict';
  const cellValue = (row, index) => {
    const cell = row.cells[index];
    if (!cell) return '';
    const raw = cell.getAttribute('data-value');
    if (raw !== null && raw !== '' && !Number.isNaN(Number(raw))) return Number(raw);
    return (raw !== null ? raw : cell.textContent || '').trim().toLowerCase();
  };
  const compare = (a, b) => {
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    if (typeof a === 'number') return -1;
    if (typeof b === 'number') return 1;
    return a < b ? -1 : a > b ? 1 : 0;
  };
  document.querySelectorAll('table.sortable').forEach((table) => {
    const heads = table.tHead ? Array.from(table.tHead.rows[0].cells) : [];
    heads.forEach((th, index) => {
      th.tabIndex = 0;
      const sort = () => {
        const ascending = th.getAttribute('aria-sort') !== 'ascending';
        heads.forEach((other) => other.removeAttribute('aria-sort'));
        th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        rows.sort((a, b) => (ascending ? 1 : -1) * compare(cellValue(a, index), cellValue(b, index)));
        rows.forEach((row) => body.appendChild(row));
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (event) => { if (event.key === 'Enter') sort(); });
    });
  });
  document.querySelectorAll('.filters[data-table]').forEach((bar) => {
    const table = document.getElementById(bar.getAttribute('data-table'));
    if (!table) return;
    const selects = Array.from(bar.querySelectorAll('select[data-filter]'));
    const text = bar.querySelector('input[data-filter-text]');
    const count = bar.querySelector('.filter-count');
    const apply = () => {
      const needle = text ? text.value.trim().toLowerCase() : '';
      let shown = 0;
      const rows = Array.from(table.tBodies[0].rows);
      rows.forEach((row) => {
        let visible = selects.every((select) => select.value === '' || row.getAttribute('data-f-' + select.getAttribute('data-filter')) === select.value);
        if (visible && needle) visible = (row.textContent || '').toLowerCase().includes(needle);
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      if (count) count.textContent = shown + ' of ' + rows.length + ' rows';
    };
    selects.forEach((select) => select.addEventListener('change', apply));
    if (text) text.addEventListener('input', apply);
    apply();
  });
  const openAncestors = (element) => {
    for (let node = element; node; node = node.parentElement) if (node.tagName === 'DETAILS') node.open = true;
  };
  const showSlides = (row) => {
    const deckId = row.getAttribute('data-deck');
    const deck = deckId ? document.getElementById(deckId) : row.closest('.deck');
    if (!deck) return;
    openAncestors(deck);
    const wanted = (row.getAttribute('data-slides') || '').split(' ').filter(Boolean);
    deck.querySelectorAll('.slide.highlight').forEach((slide) => slide.classList.remove('highlight'));
    document.querySelectorAll('tr.selected').forEach((other) => other.classList.remove('selected'));
    row.classList.add('selected');
    let first = null;
    wanted.forEach((index) => {
      const slide = deck.querySelector('.slide[data-slide="' + index + '"]');
      if (slide) { slide.classList.add('highlight'); if (!first) first = slide; }
    });
    const note = deck.querySelector('.slide-note');
    const label = row.getAttribute('data-label');
    const cited = wanted.length === 0 ? 'no slide cited' : (first ? 'slide ' + wanted.join(', ') : 'slide ' + wanted.join(', ') + ' is not in this deck');
    if (note) note.textContent = (label ? label + ': ' : '') + cited;
    if (!deck.contains(row)) deck.scrollIntoView({ block: 'start' });
    if (first) {
      const strip = first.parentElement;
      strip.scrollLeft = first.offsetLeft - strip.offsetLeft - (strip.clientWidth - first.clientWidth) / 2;
    }
  };
  document.querySelectorAll('tr[data-slides]').forEach((row) => {
    row.tabIndex = 0;
    row.addEventListener('click', () => showSlides(row));
    row.addEventListener('keydown', (event) => { if (event.key === 'Enter') showSlides(row); });
  });
  const followHash = () => {
    const id = decodeURIComponent(location.hash.slice(1));
    const target = id ? document.getElementById(id) : null;
    if (target) { openAncestors(target); target.scrollIntoView({ block: 'start' }); }
  };
  window.addEventListener('hashchange', followHash);
  followHash();
})();`;
