// garrison report: draws the matrix of the data in #garrison-data. Only the
// rows and columns on screen are in the document; the filters and the open
// explanation live in the URL's fragment (#ns=shop&kind=Deployment&cluster=eu-
// &app=Deployment/shop/web), so a link shows what its sender saw.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('garrison-data').textContent);
  var clusters = data.clusters;
  var rows = data.rows;
  var base = clusters.length + 1;
  var ROW = 22, COL = 30, HEAD = 120, SPARE = 6;
  // The label column (kind, name, state, policy): as wide as the widest
  // label needs, as long as the clusters' columns still fit beside it, and
  // never narrower than MIN_NAME; a label cut short keeps its whole text in
  // its tooltip.
  var MIN_NAME = 360, NAME = MIN_NAME, needed = null;
  var PLACEHOLDER = '\uE000';
  var CLUSTER_SCOPED = '_cluster';
  var TOKEN = /^(\d+|\.)?([fhacrACR]*)(?:~(\d+))?(?:<(\d+))?(?:>(\d+))?$/;

  var grid = document.getElementById('grid');
  var sizer = document.getElementById('sizer');
  var head = document.getElementById('head');
  var body = document.getElementById('body');
  var byKey = {};
  rows.forEach(function (row, i) {
    row.index = i;
    row.tokens = row.cells.split(',');
    row.search = (row.key + ' ' + row.source).toLowerCase();
    byKey[row.key] = row;
  });

  // What a Karmada control plane's Works deliver otherwise (`--works`), by
  // row index and cluster name.
  var verify = data.verify || null;
  var verified = {};
  if (verify) {
    verify.clusters.forEach(function (cluster) {
      cluster.differences.forEach(function (d) {
        if (d.row !== undefined) verified[d.row + '\n' + cluster.name] = d;
      });
    });
  }
  var KIND_TEXT = { 'differs': 'differs', 'only-karmada': 'only in Karmada', 'only-garrison': 'only in garrison' };

  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  // --- the state, in the fragment -------------------------------------
  var state = {};
  var FIELDS = ['ns', 'kind', 'cluster', 'q', 'changed', 'held', 'app', 'works'];

  function readHash() {
    var params = new URLSearchParams(location.hash.replace(/^#/, ''));
    FIELDS.forEach(function (f) { state[f] = params.get(f) || ''; });
  }

  function hashOf(changes) {
    var params = new URLSearchParams();
    FIELDS.forEach(function (f) {
      var value = Object.prototype.hasOwnProperty.call(changes, f) ? changes[f] : state[f];
      if (value) params.set(f, value);
    });
    return '#' + params.toString();
  }

  function writeHash() {
    var hash = hashOf({});
    if (hash === location.hash || (hash === '#' && !location.hash)) return;
    try {
      history.replaceState(null, '', hash === '#' ? location.pathname + location.search : hash);
    } catch (e) {
      location.replace(hash);
    }
  }

  // --- cells ----------------------------------------------------------
  function parse(token) {
    if (!token) return null;
    var m = TOKEN.exec(token);
    if (!m) return null;
    return {
      present: m[1] !== undefined,
      replicas: m[1] && m[1] !== '.' ? m[1] : null,
      flags: m[2],
      share: m[3],
      previous: m[4],
      wouldBe: m[5]
    };
  }

  function has(cell, flag) { return cell.flags.indexOf(flag) >= 0; }

  function describeCell(row, cluster, cell) {
    var lines = [row.key + ' on ' + cluster.name];
    var replicas = function (n) { return n === '1' ? '1 replica' : n + ' replicas'; };
    if (cell.present) lines.push(cell.replicas !== null ? replicas(cell.replicas) : 'object without replicas');
    if (cell.share) lines.push('the binding gives ' + cell.share + '; an override sets ' + cell.replicas);
    if (has(cell, 'f')) lines.push('fort cluster');
    if (has(cell, 'h')) lines.push(cluster.paused ? 'held: the cluster is paused and keeps its files' : 'held: frozen at the previous render (suspended)');
    var since = ' since the stored render (' + data.against + ')';
    if (has(cell, 'a')) lines.push('added' + since);
    var share = cell.share || cell.replicas;
    if (has(cell, 'c')) lines.push('changed' + since + (cell.previous ? ': the binding\'s share ' + cell.previous + ' \u2192 ' + share : ''));
    if (has(cell, 'r')) lines.push('removed' + since + (cell.previous ? ' (had ' + replicas(cell.previous) + ')' : ''));
    var would = cell.wouldBe ? ' (' + replicas(cell.wouldBe) + ')' : '';
    if (has(cell, 'A')) lines.push('held back: would be added' + would);
    if (has(cell, 'C')) lines.push('held back: would change' + would);
    if (has(cell, 'R')) lines.push('held back: would be removed');
    if (row.fortFrom && has(cell, 'f')) lines.push('the fort moved here from ' + row.fortFrom);
    var d = verified[row.index + '\n' + cluster.name];
    if (d) lines.push('Karmada\'s Works: ' + KIND_TEXT[d.kind] + (d.explained ? ' (explained)' : ' (not explained)') + (d.reason ? ': ' + d.reason : ''));
    return lines.join('\n');
  }

  function cellHtml(row, j, left, href) {
    var cell = parse(row.tokens[j]);
    if (!cell) return '';
    var classes = ['cell'];
    var text;
    if (cell.present) {
      text = cell.replicas !== null ? cell.replicas : '\u25CF';
    } else if (has(cell, 'r')) {
      text = cell.previous || '\u25CF';
    } else {
      text = cell.wouldBe || '\u25CF';
      classes.push('ghost');
    }
    if (has(cell, 'f')) classes.push('fort');
    if (has(cell, 'h')) classes.push('held');
    if (has(cell, 'a')) classes.push('added');
    if (has(cell, 'c')) classes.push('changed');
    if (has(cell, 'r')) classes.push('removed');
    if (/[ACR]/.test(cell.flags)) classes.push('heldback');
    var d = verified[row.index + '\n' + clusters[j].name];
    if (d) classes.push(d.explained ? 'kexplained' : 'kdiffers');
    return '<a class="' + classes.join(' ') + '" style="left:' + left + 'px" href="' + href +
      '" data-c="' + esc(clusters[j].name) + '" title="' + esc(describeCell(row, clusters[j], cell)) + '">' +
      esc(text) + '</a>';
  }

  // --- filtering ------------------------------------------------------
  var shownRows = rows, shownCols = [];

  function clusterMatches(name, terms) {
    if (!terms.length) return true;
    name = name.toLowerCase();
    return terms.some(function (t) {
      return t.charAt(0) === '=' ? name === t.slice(1) : name.indexOf(t) >= 0;
    });
  }

  function filter() {
    var terms = state.cluster.toLowerCase().split(',').map(function (t) { return t.trim(); })
      .filter(function (t) { return t; });
    shownCols = [];
    clusters.forEach(function (c, j) { if (clusterMatches(c.name, terms)) shownCols.push(j); });
    var ns = state.ns === CLUSTER_SCOPED ? '' : state.ns;
    var nsIndex = state.ns ? data.namespaces.indexOf(ns) : -1;
    var kindIndex = state.kind ? data.kinds.indexOf(state.kind) : -1;
    var q = state.q.toLowerCase();
    shownRows = rows.filter(function (row) {
      if (state.ns && row.ns !== nsIndex) return false;
      if (state.kind && row.kind !== kindIndex) return false;
      if (q && row.search.indexOf(q) < 0) return false;
      if (state.changed && !row.changed) return false;
      if (state.held && !row.heldBack) return false;
      if (terms.length) {
        return shownCols.some(function (j) {
          var cell = parse(row.tokens[j]);
          if (!cell) return false;
          if (state.changed) return /[acr]/.test(cell.flags);
          if (state.held) return /[ACR]/.test(cell.flags);
          return true;
        });
      }
      return true;
    });
    document.getElementById('shown').textContent = 'showing ' + shownRows.length + ' of ' + rows.length +
      ' rows, ' + shownCols.length + ' of ' + clusters.length + ' clusters';
    body.style.height = (shownRows.length * ROW) + 'px';
    draw();
  }

  // --- the label column -------------------------------------------------
  function labelHtml(row, href) {
    return '<div class="label" title="' + esc(row.key + '\n' + row.source + (row.state ? '\n' + row.state : '')) +
      '"><a href="' + href + '"><span class="kind">' + esc(data.kinds[row.kind]) + '</span> ' +
      esc((data.namespaces[row.ns] ? data.namespaces[row.ns] + '/' : '') + row.name) + '</a>' +
      (row.state ? ' <span class="state">' + row.state + '</span>' : '') +
      ' <span class="src">' + esc(row.source) + '</span></div>';
  }

  // The width the widest label needs to show whole, measured once, in the
  // page's own fonts: every label laid out at its natural width, unseen.
  function neededWidth() {
    if (needed !== null) return needed;
    var probe = document.createElement('div');
    probe.className = 'probe';
    probe.innerHTML = rows.map(function (row) { return labelHtml(row, '#'); }).join('');
    document.body.appendChild(probe);
    needed = Math.ceil(probe.getBoundingClientRect().width);
    document.body.removeChild(probe);
    return needed;
  }

  function layout() {
    var room = (grid.clientWidth || 1200) - shownCols.length * COL;
    NAME = Math.max(MIN_NAME, Math.min(neededWidth(), room));
    grid.style.setProperty('--name', NAME + 'px');
    sizer.style.width = (NAME + shownCols.length * COL) + 'px';
  }

  // --- drawing what is on screen ---------------------------------------
  var pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }

  function draw() {
    layout();
    var width = grid.clientWidth || 1200, height = grid.clientHeight || 800;
    var top = Math.max(0, grid.scrollTop - HEAD), left = grid.scrollLeft;
    var r0 = Math.max(0, Math.floor(top / ROW) - SPARE);
    var r1 = Math.min(shownRows.length, Math.ceil((top + height) / ROW) + SPARE);
    var c0 = Math.max(0, Math.floor(left / COL) - SPARE);
    var c1 = Math.min(shownCols.length, Math.ceil((left + width - NAME) / COL) + SPARE);
    var html = ['<div class="corner">application \u2193 \u00B7 cluster \u2192</div>'];
    for (var c = c0; c < c1; c++) {
      var cluster = clusters[shownCols[c]];
      var title = cluster.name + (cluster.paused ? '\npaused: keeps its files as they are; changes to it are held back' : '') +
        '\nshow only this cluster';
      html.push('<a class="col' + (cluster.paused ? ' paused' : '') + '" style="left:' + (NAME + c * COL) +
        'px" href="' + esc(hashOf({ cluster: '=' + cluster.name })) + '" data-c="' + esc(cluster.name) +
        '" title="' + esc(title) + '"><span>' + (cluster.paused ? '\u275A\u275A ' : '') + esc(cluster.name) + '</span></a>');
    }
    head.innerHTML = html.join('');
    html = [];
    for (var b = c0; b < c1; b++) {
      if (clusters[shownCols[b]].paused) html.push('<div class="band" style="left:' + (NAME + b * COL) + 'px"></div>');
    }
    for (var r = r0; r < r1; r++) {
      var row = shownRows[r];
      var href = esc(hashOf({ app: row.key }));
      var classes = 'row' + (row.key === state.app ? ' open' : '') + (row.state ? ' ' + row.state : '');
      html.push('<div class="' + classes + '" style="top:' + (r * ROW) + 'px" data-key="' + esc(row.key) + '">');
      html.push(labelHtml(row, href));
      for (var k = c0; k < c1; k++) {
        html.push(cellHtml(row, shownCols[k], NAME + k * COL, href));
      }
      html.push('</div>');
    }
    body.innerHTML = html.join('');
  }

  // --- explanations -----------------------------------------------------
  var decoded = {};

  function tokensOf(i) {
    var chain = [];
    var j = i;
    while (!decoded[j]) {
      var code = rows[j].explanation;
      if (!code) return null;
      if (code[0] === 0) { decoded[j] = code.slice(1); break; }
      chain.push(j);
      j = code[1];
    }
    var tokens = decoded[j];
    for (var k = chain.length - 1; k >= 0; k--) {
      var x = rows[chain[k]].explanation;
      var n = x[2], map = {};
      for (var p = 0; p < n; p++) map[x[3 + 2 * p]] = x[4 + 2 * p];
      var out = new Array(tokens.length);
      for (var q = 0; q < tokens.length; q++) {
        var entry = Math.floor(tokens[q] / base), cluster = tokens[q] % base;
        var swapped = map[entry];
        out[q] = (swapped === undefined ? entry : swapped) * base + cluster;
      }
      for (var s = 3 + 2 * n; s < x.length; s += 2) out[x[s]] = x[s + 1];
      decoded[chain[k]] = out;
      tokens = out;
    }
    return tokens;
  }

  // The text `garrison explain` prints for the row at `i`.
  function explanation(i) {
    var tokens = tokensOf(i);
    if (!tokens) return null;
    return tokens.map(function (t) {
      var line = data.lines[Math.floor(t / base)];
      var c = t % base;
      return c ? line.split(PLACEHOLDER).join(clusters[c - 1].name) : line;
    }).join('\n') + '\n';
  }
  window.garrisonExplanation = function (key) {
    var row = byKey[key];
    return row ? explanation(row.index) : null;
  };

  function showExplanation() {
    var panel = document.getElementById('explain');
    var row = state.app ? byKey[state.app] : null;
    if (!row) { panel.hidden = true; return; }
    panel.hidden = false;
    document.getElementById('explain-title').textContent = row.key;
    var text = explanation(row.index);
    var command = document.getElementById('explain-command');
    if (text !== null) {
      command.textContent = 'garrison explain ' + row.key.replace(/@.*$/, '');
      command.hidden = false;
    } else {
      command.hidden = true;
    }
    document.getElementById('explain-text').textContent = text !== null ? text : row.note;
    document.getElementById('explain-close').setAttribute('href', hashOf({ app: '' }));
  }

  // --- the comparison with Karmada's Works ------------------------------
  function differencesOf(cluster) { return cluster.differences; }

  function verifyLine() {
    var line = document.getElementById('verify');
    if (!verify) return;
    var all = [].concat.apply([], verify.clusters.map(differencesOf));
    var unexplained = all.filter(function (d) { return !d.explained; }).length;
    var objects = verify.clusters.reduce(function (n, c) { return n + c.matching + c.differences.length; }, 0);
    var verdict = verify.agrees
      ? '<span class="agrees">every cluster gets what Karmada delivers</span> (' + objects + ' objects on ' + verify.clusters.length + ' clusters, ' + all.length + ' explained difference' + (all.length === 1 ? '' : 's') + ')'
      : '<span class="differs">' + unexplained + ' of ' + all.length + ' difference' + (all.length === 1 ? '' : 's') + ' not explained</span>: the clusters would not get what Karmada delivers';
    line.innerHTML = 'Compared with Karmada\'s Works (' + esc(verify.works.join(', ')) + '): ' + verdict +
      ' \u00B7 <a id="works-open" href="' + esc(hashOf({ works: '1', app: '' })) + '">per cluster</a>';
    line.hidden = false;
  }

  function showWorks() {
    var panel = document.getElementById('works');
    if (!verify || !state.works) { panel.hidden = true; return; }
    panel.hidden = false;
    var html = [];
    verify.clusters.forEach(function (cluster) {
      var counts = [cluster.matching + ' match'];
      Object.keys(KIND_TEXT).forEach(function (kind) {
        var n = cluster.differences.filter(function (d) { return d.kind === kind; }).length;
        if (n) counts.push(n + ' ' + KIND_TEXT[kind]);
      });
      html.push('<h3 data-c="' + esc(cluster.name) + '">' + esc(cluster.name) + ': ' + esc(counts.join(', ')) + '</h3>');
      cluster.differences.forEach(function (d) {
        var object = d.row !== undefined
          ? '<a href="' + esc(hashOf({ app: rows[d.row].key, works: '' })) + '">' + esc(d.object) + '</a>'
          : esc(d.object);
        html.push('<div class="difference ' + (d.explained ? 'explained' : 'unexplained') + '" data-o="' + esc(d.object) + '">' +
          '<span class="what">' + KIND_TEXT[d.kind] + (d.explained ? ' (explained)' : ' (not explained)') + '</span>: ' + object +
          (d.reason ? '<p class="reason">' + esc(d.reason) + '</p>' : '') +
          (d.diff ? '<pre>' + esc(d.diff) + '</pre>' : '') + '</div>');
      });
    });
    document.getElementById('works-text').innerHTML = html.join('');
    document.getElementById('works-close').setAttribute('href', hashOf({ works: '' }));
  }

  // --- the header and the form ------------------------------------------
  function fillForm() {
    var ns = document.getElementById('f-ns');
    data.namespaces.forEach(function (name) {
      var option = document.createElement('option');
      option.value = name || CLUSTER_SCOPED;
      option.textContent = name || '(cluster-scoped)';
      ns.appendChild(option);
    });
    var kind = document.getElementById('f-kind');
    data.kinds.forEach(function (name) {
      var option = document.createElement('option');
      option.value = name;
      option.textContent = name;
      kind.appendChild(option);
    });
    var paused = clusters.filter(function (c) { return c.paused; }).length;
    var t = data.totals;
    document.getElementById('meta').textContent = clusters.length + ' clusters' +
      (paused ? ' (' + paused + ' paused)' : '') + ' \u00D7 ' + t.applications + ' applications, compared with the stored render ' +
      data.against + ' (' + data.format + '); garrison ' + data.garrison;
    document.getElementById('totals').innerHTML =
      '<span class="added">' + t.added + ' added</span> <span class="changed">' + t.changed + ' changed</span> ' +
      '<span class="removed">' + t.removed + ' removed</span> object files since the stored render; ' +
      '<span class="heldback">' + t.heldBack + ' held back</span> by paused clusters and suspended policies; ' +
      t.fortMoves + ' fort move' + (t.fortMoves === 1 ? '' : 's');
  }

  function syncForm() {
    document.getElementById('f-ns').value = state.ns;
    document.getElementById('f-kind').value = state.kind;
    document.getElementById('f-cluster').value = state.cluster;
    document.getElementById('f-app').value = state.q;
    document.getElementById('f-changed').checked = !!state.changed;
    document.getElementById('f-held').checked = !!state.held;
  }

  function fromForm() {
    state.ns = document.getElementById('f-ns').value;
    state.kind = document.getElementById('f-kind').value;
    state.cluster = document.getElementById('f-cluster').value.trim();
    state.q = document.getElementById('f-app').value.trim();
    state.changed = document.getElementById('f-changed').checked ? '1' : '';
    state.held = document.getElementById('f-held').checked ? '1' : '';
    writeHash();
    filter();
  }

  function fromHash() {
    readHash();
    syncForm();
    filter();
    showExplanation();
    verifyLine();
    showWorks();
  }

  fillForm();
  document.getElementById('filters').addEventListener('input', fromForm);
  document.getElementById('filters').addEventListener('submit', function (e) { e.preventDefault(); });
  window.addEventListener('hashchange', fromHash);
  window.addEventListener('resize', schedule);
  grid.addEventListener('scroll', schedule);
  fromHash();
  if (state.app && byKey[state.app]) {
    var at = shownRows.indexOf(byKey[state.app]);
    if (at >= 0) grid.scrollTop = Math.max(0, at * ROW - 2 * ROW);
    draw();
  }
  // How long the page took from navigation to its first drawing.
  document.documentElement.setAttribute('data-load-ms', String(Math.round(performance.now())));
})();
