import type { StudyRecord } from '../schemas/study-record';

const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1b1f24;background:#f6f7f9}
main{max-width:1600px;margin:0 auto;padding:16px 24px}h1{font-size:22px}h2{font-size:17px;margin:18px 0 6px}
button{font:inherit;padding:6px 12px;border:1px solid #8a94a3;border-radius:6px;background:#fff;cursor:pointer}
button.primary{background:#1f5fbf;color:#fff;border-color:#1f5fbf}input{font:inherit;padding:6px 8px}
header{display:flex;gap:16px;align-items:center;justify-content:space-between}
#task{background:#fff;border:1px solid #d5dae1;border-radius:8px;padding:10px 14px}
#decks{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:14px}
.deck{background:#fff;border:1px solid #d5dae1;border-radius:8px;padding:8px}.deck h3{margin:2px 0 6px;font-size:16px}
.deck img{width:100%;aspect-ratio:16/9;object-fit:contain;background:#eef0f3;border:1px solid #e1e5ea}
.strip{display:flex;flex-wrap:wrap;gap:3px;margin-top:6px}.strip button{padding:1px 6px;font-size:12px}
.strip button[aria-current=true]{background:#1f5fbf;color:#fff}
#ranking{padding-left:28px;max-width:480px}#ranking li{background:#fff;border:1px solid #8a94a3;border-radius:6px;
padding:8px 12px;margin:4px 0;cursor:grab;user-select:none}#ranking li:focus{outline:3px solid #1f5fbf}
#ranking li.dragging{opacity:.4}.hint{color:#5b6573;font-size:13px}.actions{display:flex;gap:10px;margin:14px 0}
[role=alert]{color:#b3261e}`;

const SCRIPT = String.raw`
(function () {
  'use strict';
  var study = JSON.parse(document.getElementById('study-data').textContent);
  var ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
  var served = location.protocol === 'http:' || location.protocol === 'https:';
  var $ = function (id) { return document.getElementById(id); };
  var annotator = null, state = null, index = 0, shownAt = null;

  function hash(text) {
    var h = 2166136261;
    for (var i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619) >>> 0; }
    return h >>> 0;
  }
  function shuffled(items, seed) {
    var a = seed >>> 0, copy = items.slice();
    function random() {
      a = (a + 0x6d2b79f5) >>> 0; var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    }
    for (var i = copy.length - 1; i > 0; i--) { var j = Math.floor(random() * (i + 1)); var x = copy[i]; copy[i] = copy[j]; copy[j] = x; }
    return copy;
  }
  function storageKey(id) { return 'xsb-study:' + study.study + ':' + id; }
  function save() { localStorage.setItem(storageKey(annotator), JSON.stringify(state)); }
  function load(id) {
    try { var saved = JSON.parse(localStorage.getItem(storageKey(id)) || 'null'); if (saved && saved.answers) return saved; } catch (e) {}
    return { answers: {}, drafts: {}, elapsed: {}, index: 0 };
  }
  function labelsOf(c) { return c.decks.map(function (d) { return d.label; }); }
  /** The order this annotator sees a case's decks in: shuffled per annotator, so no position favours a system. */
  function orderOf(c) { return shuffled(labelsOf(c), hash(annotator + '|' + c.case)); }

  function stopClock() {
    if (shownAt === null) return;
    var c = study.cases[index];
    state.elapsed[c.case] = (state.elapsed[c.case] || 0) + (performance.now() - shownAt) / 1000;
    shownAt = null; save();
  }
  function currentRanking() {
    return Array.prototype.map.call($('ranking').children, function (li) { return li.dataset.label; });
  }
  function deckColumn(c, label) {
    var deck = c.decks.filter(function (d) { return d.label === label; })[0];
    var section = document.createElement('section');
    section.className = 'deck'; section.dataset.label = label;
    var title = document.createElement('h3'); title.textContent = 'Deck ' + label; section.appendChild(title);
    var img = document.createElement('img'); section.appendChild(img);
    var strip = document.createElement('div'); strip.className = 'strip'; section.appendChild(strip);
    function show(n) {
      img.src = deck.slides[n]; img.alt = 'Deck ' + label + ', slide ' + (n + 1) + ' of ' + deck.slides.length;
      Array.prototype.forEach.call(strip.children, function (b, k) { b.setAttribute('aria-current', String(k === n)); });
    }
    deck.slides.forEach(function (_, n) {
      var b = document.createElement('button'); b.type = 'button'; b.textContent = String(n + 1);
      b.setAttribute('aria-label', 'Deck ' + label + ' slide ' + (n + 1));
      b.addEventListener('click', function () { show(n); }); strip.appendChild(b);
    });
    if (deck.slides.length > 0) show(0);
    return section;
  }
  function rankingItem(label) {
    var li = document.createElement('li'); li.tabIndex = 0; li.draggable = true; li.dataset.label = label;
    li.textContent = 'Deck ' + label;
    li.addEventListener('keydown', function (event) {
      var list = $('ranking');
      if (event.key === 'ArrowUp' && li.previousElementSibling) list.insertBefore(li, li.previousElementSibling);
      else if (event.key === 'ArrowDown' && li.nextElementSibling) list.insertBefore(li.nextElementSibling, li);
      else return;
      event.preventDefault(); li.focus(); keepDraft();
    });
    li.addEventListener('dragstart', function (event) {
      li.classList.add('dragging'); event.dataTransfer.effectAllowed = 'move'; event.dataTransfer.setData('text/plain', label);
    });
    li.addEventListener('dragend', function () { li.classList.remove('dragging'); keepDraft(); });
    li.addEventListener('dragover', function (event) {
      event.preventDefault();
      var dragging = document.querySelector('#ranking li.dragging');
      if (!dragging || dragging === li) return;
      var box = li.getBoundingClientRect();
      $('ranking').insertBefore(dragging, event.clientY < box.top + box.height / 2 ? li : li.nextElementSibling);
    });
    li.addEventListener('drop', function (event) { event.preventDefault(); keepDraft(); });
    return li;
  }
  function keepDraft() {
    var c = study.cases[index]; state.drafts[c.case] = currentRanking(); save();
    $('order-status').textContent = 'Ranking: ' + currentRanking().join(', ');
  }
  function showCase(n) {
    index = n; state.index = n; save();
    var c = study.cases[n];
    $('start').hidden = true; $('done').hidden = true; $('case').hidden = false;
    $('progress').textContent = 'Case ' + (n + 1) + ' of ' + study.cases.length + ' · annotator ' + annotator;
    $('task').textContent = study.task + ' Audience: ' + c.audience.replace(/_/g, ' ') + '. Scene: ' + c.scene.replace(/_/g, ' ') + '.';
    var order = orderOf(c);
    var decks = $('decks'); decks.textContent = '';
    order.forEach(function (label) { decks.appendChild(deckColumn(c, label)); });
    var ranking = state.drafts[c.case] || (state.answers[c.case] && state.answers[c.case].ranking) || order;
    var list = $('ranking'); list.textContent = '';
    ranking.forEach(function (label) { list.appendChild(rankingItem(label)); });
    $('order-status').textContent = 'Ranking: ' + ranking.join(', ');
    $('previous').disabled = n === 0;
    shownAt = performance.now();
  }
  function answersJsonl() {
    return study.cases.filter(function (c) { return state.answers[c.case]; }).map(function (c) {
      var a = state.answers[c.case];
      return JSON.stringify({ case: c.case, ranking: a.ranking, seconds: a.seconds });
    }).join('\n') + '\n';
  }
  function download() {
    stopClock();
    var url = URL.createObjectURL(new Blob([answersJsonl()], { type: 'application/x-ndjson' }));
    var a = document.createElement('a'); a.href = url; a.download = annotator + '.jsonl';
    document.body.appendChild(a); a.click(); a.remove(); URL.revokeObjectURL(url);
    if (!$('case').hidden) shownAt = performance.now();
  }
  function saveToServer() {
    if (!served) return Promise.resolve();
    $('save-status').textContent = 'Saving…';
    return fetch('annotations/' + encodeURIComponent(annotator) + '.jsonl', {
      method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: answersJsonl()
    }).then(function (response) {
      return response.json().then(function (body) {
        $('save-status').textContent = response.ok ? 'Saved ' + body.saved + ' answers to the study folder.' : 'Not saved: ' + body.error;
      });
    }).catch(function (error) { $('save-status').textContent = 'Not saved: ' + error.message; });
  }
  function showDone() {
    $('case').hidden = true; $('done').hidden = false;
    var count = Object.keys(state.answers).length;
    $('done-summary').textContent = count + ' of ' + study.cases.length + ' cases ranked.';
    $('save').hidden = !served;
  }
  function next() {
    stopClock();
    var c = study.cases[index];
    state.answers[c.case] = { ranking: currentRanking(), seconds: Math.round((state.elapsed[c.case] || 0) * 10) / 10 };
    delete state.drafts[c.case]; save(); saveToServer();
    if (index + 1 < study.cases.length) showCase(index + 1); else { state.index = study.cases.length; save(); showDone(); }
  }
  function begin(id) {
    if (!ID.test(id)) { $('start-error').textContent = 'An annotator id is 1-64 letters, digits, "_", "." or "-".'; return; }
    annotator = id; state = load(id); localStorage.setItem('xsb-study:' + study.study + ':last', id);
    if (state.index >= study.cases.length) showDone(); else showCase(state.index || 0);
  }
  $('count').textContent = String(study.cases.length);
  $('begin').addEventListener('click', function () { begin($('annotator').value.trim()); });
  $('annotator').addEventListener('keydown', function (event) { if (event.key === 'Enter') begin($('annotator').value.trim()); });
  $('next').addEventListener('click', next);
  $('previous').addEventListener('click', function () { stopClock(); keepDraft(); if (index > 0) showCase(index - 1); });
  $('download').addEventListener('click', download);
  $('download-partial').addEventListener('click', download);
  $('save').addEventListener('click', saveToServer);
  $('review').addEventListener('click', function () { showCase(0); });
  // Another person at the same browser: their own answers, never the previous annotator's.
  $('switch').addEventListener('click', function () {
    stopClock(); localStorage.removeItem('xsb-study:' + study.study + ':last');
    annotator = null; state = null; $('annotator').value = '';
    $('case').hidden = true; $('done').hidden = true; $('start').hidden = false;
  });
  window.addEventListener('pagehide', stopClock);
  document.addEventListener('visibilitychange', function () {
    if (document.hidden) stopClock(); else if (!$('case').hidden && shownAt === null) shownAt = performance.now();
  });
  var last = localStorage.getItem('xsb-study:' + study.study + ':last');
  if (last && ID.test(last)) begin(last);
})();`;

/** JSON inside a script element: `<` escaped, so no text in it can close the element. */
const inlineJson = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

/**
 * The study page: one HTML file with the study inline (so it works from file:// with no server) and the slide
 * images beside it. It shows no system name, file name or path: only blinded labels, the task, the audience and
 * the scene. Answers are kept in the browser (a reload resumes), downloaded as `<annotator>.jsonl`, and, when
 * `xsb view --study STUDY` serves the page, saved into the study's `annotations/` after every case.
 */
export function renderStudyPage(study: StudyRecord): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Deck ranking study</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<section id="start">
<h1>Deck ranking study</h1>
<p>You will see <span id="count"></span> cases. In each, several slide decks were made from the same source for the
audience and scene stated. Look through every deck (click a slide number to see that slide), then order the decks
from best to worst as a presentation for that audience and scene. Your answers are kept in this browser, so you can
stop and come back.</p>
<p><label>Your annotator id <input id="annotator" autocomplete="off" spellcheck="false"></label>
<button id="begin" class="primary" type="button">Begin</button></p>
<p id="start-error" role="alert"></p>
</section>
<section id="case" hidden>
<header><strong id="progress"></strong><span><button id="switch" type="button">Change annotator</button>
<button id="download-partial" type="button">Download answers so far</button></span></header>
<p id="task"></p>
<div id="decks"></div>
<h2>Your ranking, best first</h2>
<p class="hint">Drag a deck to its place, or focus it (Tab) and move it with the ↑ and ↓ keys.</p>
<ol id="ranking" aria-describedby="order-status"></ol>
<p id="order-status" class="hint" aria-live="polite"></p>
<div class="actions"><button id="previous" type="button">Previous case</button>
<button id="next" class="primary" type="button">Save ranking and continue</button></div>
</section>
<section id="done" hidden>
<h1>Thank you</h1>
<p id="done-summary"></p>
<div class="actions"><button id="download" class="primary" type="button">Download answers</button>
<button id="save" type="button" hidden>Save to the study folder</button>
<button id="review" type="button">Review the cases</button></div>
<p id="save-status" role="status"></p>
</section>
</main>
<script type="application/json" id="study-data">${inlineJson(study)}</script>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
