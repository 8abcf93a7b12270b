// What the parity check and the Node benchmark share, with no Node import, so that the same
// file runs in the browser: calling the package, normalising its answers, comparing exactly.

/** An error as `{ message, kind?, field?, problem?, accepted? }`, whatever the package throws. */
export function errorOf(e) {
  const o = e && typeof e === 'object' ? (e instanceof Map ? Object.fromEntries(e) : e) : {};
  return {
    message: String(o.message ?? (typeof e === 'string' ? e : JSON.stringify(plain(o)))),
    kind: o.kind, field: o.field, problem: o.problem, accepted: o.accepted,
  };
}

export const camel = (k) => k.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
export const snake = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function mapKeys(v, f) {
  if (Array.isArray(v)) return v.map((x) => mapKeys(x, f));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [f(k), mapKeys(x, f)]));
  return v;
}

/** A plain value: Map → object, BigInt → number, undefined/null members dropped. */
export function plain(v) {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Map) v = Object.fromEntries(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined && x !== null) out[k] = plain(x);
    return out;
  }
  return v;
}

/**
 * A caller for the package: `call(input)` returns `{ output }` or `{ error: message }`, with
 * the output's keys in snake_case.
 */
export function caller(m) {
  const json = m.estimateJson ?? m.estimate_json;
  if (typeof json === 'function') {
    return {
      how: 'estimateJson(text)',
      call(input) {
        try { return { output: plain(JSON.parse(json(JSON.stringify(input)))) }; }
        catch (e) { return { error: errorOf(e) }; }
      },
    };
  }
  if (typeof m.estimate !== 'function') throw new Error(`the package exports no estimate(): it has ${Object.keys(m).join(', ')}`);
  let useCamel = null;
  const tryCall = (input) => {
    try { return { output: mapKeys(plain(m.estimate(input)), snake) }; }
    catch (e) { return { error: errorOf(e) }; }
  };
  return {
    get how() { return `estimate(object${useCamel ? ', camelCase keys' : ''})`; },
    call(input) {
      if (useCamel === null) {
        const r = tryCall(input);
        if (r.error && /unknown field|unknown variant/i.test(r.error.message)) {
          useCamel = true;
          return tryCall(mapKeys(input, camel));
        }
        if (r.output) useCamel = false;
        return r;
      }
      return tryCall(useCamel ? mapKeys(input, camel) : input);
    },
  };
}

/** The first difference between two plain values, as `path: a ≠ b`, or null. Numbers exactly. */
export function diff(a, b, path = '') {
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || (a === 0 && b === 0) ? null : `${path}: ${a} ≠ ${b}`;
  if (typeof a !== typeof b || Array.isArray(a) !== Array.isArray(b)) return `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
  if (Array.isArray(a)) {
    if (a.length !== b.length) return `${path}: ${a.length} items ≠ ${b.length}`;
    for (let i = 0; i < a.length; i++) { const d = diff(a[i], b[i], `${path}[${i}]`); if (d) return d; }
    return null;
  }
  if (a && typeof a === 'object') {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      if (!(k in a) || !(k in b)) return `${path}.${k}: ${k in a ? 'only native' : 'only wasm'}`;
      const d = diff(a[k], b[k], `${path}.${k}`); if (d) return d;
    }
    return null;
  }
  return a === b ? null : `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
}


/**
 * Every case through the package: `{ input, output }` must give `output` exactly (after key
 * normalisation), `{ input, error }` must be refused naming the same field and problem.
 */
export function compareAll(cases, est) {
  const failures = [];
  let same = 0;
  cases.forEach((c, i) => {
    const r = est.call(c.input);
    let d = null;
    if (c.output) {
      d = r.error ? `refused: ${r.error.message}` : diff(plain(c.output), r.output);
    } else if (!r.error) {
      d = `accepted, natively refused (${c.error.field}: ${c.error.problem})`;
    } else if (r.error.field !== undefined) {
      d = diff(c.error, plain({ kind: r.error.kind, field: r.error.field, problem: r.error.problem, accepted: r.error.accepted }));
    } else if (!r.error.message.includes(c.error.field) || !r.error.message.includes(c.error.problem)) {
      d = `error "${r.error.message}" does not say "${c.error.field}: ${c.error.problem}"`;
    }
    if (d) failures.push(`case ${i}: ${d}`); else same++;
  });
  return { cases: cases.length, same, failures: failures.slice(0, 20), failed: failures.length, how: est.how };
}
