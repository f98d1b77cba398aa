// ANSI escape sequences in log text, as styled segments. Only SGR (colours,
// bold, dim, italic, underline, inverse) is kept; every other escape (cursor
// moves, OSC titles and links) is dropped. Each line is read on its own, so
// any line of a 100,000-line log can be drawn without the ones before it.
// Pure: no DOM, so it is tested in Node.

export type Colour = number | string; // 0-15: a palette class; else "rgb(r,g,b)"

export interface Style {
  fg?: Colour;
  bg?: Colour;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
  inverse?: boolean;
}

export interface Segment {
  text: string;
  style: Style;
}

// xterm's 256-colour palette from index 16 on.
function palette256(n: number): Colour {
  if (n < 16) return n;
  if (n < 232) {
    const i = n - 16;
    const level = (v: number) => (v === 0 ? 0 : 55 + v * 40);
    return `rgb(${level(Math.floor(i / 36))},${level(Math.floor(i / 6) % 6)},${level(i % 6)})`;
  }
  const g = 8 + (n - 232) * 10;
  return `rgb(${g},${g},${g})`;
}

function byte(v: number | undefined): number {
  return Math.max(0, Math.min(255, v ?? 0));
}

// Applies one SGR parameter list to `style` (in place).
function applySgr(style: Style, params: number[]): void {
  if (params.length === 0) params = [0];
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === 0) {
      for (const k of Object.keys(style)) delete style[k as keyof Style];
    } else if (p === 1) style.bold = true;
    else if (p === 2) style.dim = true;
    else if (p === 3) style.italic = true;
    else if (p === 4) style.underline = true;
    else if (p === 7) style.inverse = true;
    else if (p === 22) style.bold = style.dim = false;
    else if (p === 23) style.italic = false;
    else if (p === 24) style.underline = false;
    else if (p === 27) style.inverse = false;
    else if (p >= 30 && p <= 37) style.fg = p - 30;
    else if (p >= 90 && p <= 97) style.fg = p - 90 + 8;
    else if (p === 39) delete style.fg;
    else if (p >= 40 && p <= 47) style.bg = p - 40;
    else if (p >= 100 && p <= 107) style.bg = p - 100 + 8;
    else if (p === 49) delete style.bg;
    else if (p === 38 || p === 48) {
      let c: Colour | undefined;
      if (params[i + 1] === 5) {
        c = palette256(byte(params[i + 2]));
        i += 2;
      } else if (params[i + 1] === 2) {
        c = `rgb(${byte(params[i + 2])},${byte(params[i + 3])},${byte(params[i + 4])})`;
        i += 4;
      } else {
        break; // malformed: ignore the rest
      }
      if (p === 38) style.fg = c;
      else style.bg = c;
    }
  }
}

function clean(style: Style): Style {
  const out: Style = {};
  for (const [k, v] of Object.entries(style)) {
    if (v !== false && v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

// ESC [ params final | ESC ] ... (BEL | ESC \) | ESC + one char.
const ESCAPE = /\x1b(?:\[([\x30-\x3f]*)([\x20-\x2f]*[\x40-\x7e])|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x40-\x5f])/g;

export function parseAnsi(line: string): Segment[] {
  const out: Segment[] = [];
  const style: Style = {};
  let last = 0;
  const push = (text: string) => {
    // Other control characters (but tab) would draw as nothing or boxes.
    text = text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
    if (text) out.push({ text, style: clean(style) });
  };
  ESCAPE.lastIndex = 0;
  for (let m = ESCAPE.exec(line); m; m = ESCAPE.exec(line)) {
    push(line.slice(last, m.index));
    last = ESCAPE.lastIndex;
    if (m[2] === "m" && /^[0-9;:]*$/.test(m[1])) {
      applySgr(style, m[1] === "" ? [] : m[1].split(/[;:]/).map((s) => (s === "" ? 0 : Number(s))));
    }
  }
  push(line.slice(last));
  return out;
}

// The text without any escape sequence (search, download).
export function stripAnsi(line: string): string {
  return parseAnsi(line)
    .map((s) => s.text)
    .join("");
}
