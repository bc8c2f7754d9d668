// The part of Go's text/template that Flipt's webhook templates use: text, field access (`.Type`,
// `.Metadata.Actor.IP`, `.Payload.key`, `$` for the top), `toJson` (also as `| toJson`), `if`/`else`/
// `else if`/`end`, `range`/`else`/`end`, comments and the `{{-`/`-}}` trim markers. Anything else (other
// functions, variables, `with`, literals, …) is refused when the template is parsed, so a template that
// would behave differently from Flipt never starts. No npm package implements text/template in a
// maintained form; this covers exactly what Flipt documents.
//
// Values follow Go: structs (GoStruct) have exported field names and a JSON form of their own; maps are
// plain objects whose missing keys give "no value"; printing uses fmt's %v.

export class TemplateError extends Error {}

/** A Go struct value: fields by their Go names, and what encoding/json makes of it. */
export class GoStruct {
  constructor(
    readonly fields: Readonly<Record<string, unknown>>,
    readonly json: unknown,
  ) {}
}

/** The fields a struct type has, for checking field chains when parsing: a nested shape, or 'any'. */
export type FieldShape = { readonly [field: string]: FieldShape } | 'any' | 'scalar';

const NO_VALUE = Symbol('no value');

type Operand = { kind: 'field'; root: 'dot' | 'top'; path: string[] };
type Command = { kind: 'operand'; operand: Operand } | { kind: 'toJson'; operand?: Operand };
type Pipeline = Command[];

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'output'; pipeline: Pipeline }
  | { kind: 'if'; branches: { condition: Pipeline; body: Node[] }[]; otherwise: Node[] }
  | { kind: 'range'; pipeline: Pipeline; body: Node[]; otherwise: Node[] };

export interface Template {
  readonly nodes: readonly Node[];
}

const SUPPORTED = 'field access, toJson, if, else, range and end';

interface Action {
  words: string[];
  at: number;
}

/** Splits the body into text and actions, applying the trim markers. */
function lex(body: string): (string | Action)[] {
  const parts: (string | Action)[] = [];
  let at = 0;
  let trimNext = false;
  while (at <= body.length) {
    const open = body.indexOf('{{', at);
    let text = body.slice(at, open === -1 ? body.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    trimNext = false;
    if (open === -1) {
      if (text) parts.push(text);
      break;
    }
    let inner = open + 2;
    if (body.startsWith('- ', inner) || /^-[\t\r\n]/.test(body.slice(inner, inner + 2))) {
      text = text.replace(/\s+$/, '');
      inner += 1;
    }
    if (text) parts.push(text);
    const close = findClose(body, inner);
    if (close === -1) throw new TemplateError(`unclosed action at offset ${open}`);
    let content = body.slice(inner, close);
    if (/[ \t\r\n]-$/.test(content)) {
      content = content.slice(0, -1);
      trimNext = true;
    }
    at = close + 2;
    const trimmed = content.trim();
    if (trimmed.startsWith('/*')) {
      if (!trimmed.endsWith('*/')) throw new TemplateError(`unclosed comment at offset ${open}`);
      continue;
    }
    parts.push({ words: tokenize(trimmed, open), at: open });
  }
  return parts;
}

/** The `}}` that ends the action starting at `from`, skipping quoted text. */
function findClose(body: string, from: number): number {
  let quote: string | undefined;
  for (let i = from; i < body.length; i++) {
    const c = body[i];
    if (quote) {
      if (c === '\\' && quote !== '`') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === '`' || c === "'") quote = c;
    else if (c === '}' && body[i + 1] === '}') return i;
  }
  return -1;
}

function tokenize(content: string, at: number): string[] {
  const words: string[] = [];
  const pattern = /\s*(\||[^\s|]+)/y;
  let m = pattern.exec(content);
  while (m) {
    words.push(m[1] as string);
    if (pattern.lastIndex >= content.length) break;
    m = pattern.exec(content);
  }
  if (words.length === 0) throw new TemplateError(`empty action at offset ${at}`);
  return words;
}

function refuse(word: string, at: number): never {
  throw new TemplateError(`"${word}" at offset ${at} is not supported (Vexil's templates support ${SUPPORTED})`);
}

const FIELD_CHAIN = /^(\.|\$|\$?(\.[A-Za-z_][A-Za-z0-9_]*)+)$/;

function parseOperand(word: string, at: number): Operand {
  if (!FIELD_CHAIN.test(word)) refuse(word, at);
  const root = word.startsWith('$') ? 'top' : 'dot';
  const path = word.replace(/^\$/, '').split('.').filter(Boolean);
  return { kind: 'field', root, path };
}

function parsePipeline(words: string[], at: number): Pipeline {
  if (words.length === 0) throw new TemplateError(`missing value at offset ${at}`);
  const commands: Pipeline = [];
  let i = 0;
  while (i < words.length) {
    const word = words[i] as string;
    if (word === 'toJson') {
      const next = words[i + 1];
      if (next !== undefined && next !== '|') {
        commands.push({ kind: 'toJson', operand: parseOperand(next, at) });
        i += 2;
      } else {
        if (commands.length === 0) throw new TemplateError(`toJson needs a value at offset ${at}`);
        commands.push({ kind: 'toJson' });
        i += 1;
      }
    } else if (word === '|') {
      refuse(word, at);
    } else {
      if (commands.length > 0) refuse(word, at);
      commands.push({ kind: 'operand', operand: parseOperand(word, at) });
      i += 1;
    }
    if (i < words.length) {
      if (words[i] !== '|') refuse(words[i] as string, at);
      i += 1;
      if (i >= words.length || words[i] !== 'toJson') refuse(words[i] ?? '|', at);
    }
  }
  return commands;
}

type Closer = { word: 'end' | 'else'; condition?: Pipeline; at: number };

function parseNodes(
  parts: (string | Action)[],
  position: { i: number },
  nested: boolean,
): { nodes: Node[]; closer?: Closer } {
  const nodes: Node[] = [];
  while (position.i < parts.length) {
    const part = parts[position.i++] as string | Action;
    if (typeof part === 'string') {
      nodes.push({ kind: 'text', text: part });
      continue;
    }
    const [head, ...rest] = part.words as [string, ...string[]];
    switch (head) {
      case 'end':
        if (!nested || rest.length > 0) throw new TemplateError(`unexpected "end" at offset ${part.at}`);
        return { nodes, closer: { word: 'end', at: part.at } };
      case 'else':
        if (!nested) throw new TemplateError(`unexpected "else" at offset ${part.at}`);
        if (rest.length === 0) return { nodes, closer: { word: 'else', at: part.at } };
        if (rest[0] !== 'if') refuse(rest[0] as string, part.at);
        return { nodes, closer: { word: 'else', condition: parsePipeline(rest.slice(1), part.at), at: part.at } };
      case 'if':
        nodes.push(parseIf(parsePipeline(rest, part.at), parts, position, part.at));
        break;
      case 'range': {
        const pipeline = parsePipeline(rest, part.at);
        const body = parseNodes(parts, position, true);
        let otherwise: Node[] = [];
        if (body.closer?.word === 'else') {
          if (body.closer.condition) throw new TemplateError(`"else if" in range at offset ${body.closer.at}`);
          const tail = parseNodes(parts, position, true);
          if (tail.closer?.word !== 'end') throw new TemplateError(`range at offset ${part.at} has no end`);
          otherwise = tail.nodes;
        } else if (body.closer?.word !== 'end') {
          throw new TemplateError(`range at offset ${part.at} has no end`);
        }
        nodes.push({ kind: 'range', pipeline, body: body.nodes, otherwise });
        break;
      }
      default:
        nodes.push({ kind: 'output', pipeline: parsePipeline(part.words, part.at) });
    }
  }
  return { nodes };
}

function parseIf(condition: Pipeline, parts: (string | Action)[], position: { i: number }, at: number): Node {
  const branches: { condition: Pipeline; body: Node[] }[] = [];
  let current = condition;
  for (;;) {
    const body = parseNodes(parts, position, true);
    branches.push({ condition: current, body: body.nodes });
    if (body.closer === undefined) throw new TemplateError(`if at offset ${at} has no end`);
    if (body.closer.word === 'end') return { kind: 'if', branches, otherwise: [] };
    if (body.closer.condition) {
      current = body.closer.condition;
      continue;
    }
    const tail = parseNodes(parts, position, true);
    if (tail.closer?.word !== 'end') throw new TemplateError(`if at offset ${at} has no end`);
    return { kind: 'if', branches, otherwise: tail.nodes };
  }
}

/** Checks every field chain that starts at the top value (outside `range`, or through `$`) against `shape`. */
function checkFields(nodes: readonly Node[], shape: FieldShape, dotIsTop: boolean): void {
  const check = (pipeline: Pipeline) => {
    for (const command of pipeline) {
      const operand = command.kind === 'operand' ? command.operand : command.operand;
      if (!operand || (operand.root === 'dot' && !dotIsTop)) continue;
      let node: FieldShape = shape;
      for (const field of operand.path) {
        if (node === 'any') break;
        const next: FieldShape | undefined = node === 'scalar' ? undefined : node[field];
        if (next === undefined)
          throw new TemplateError(`field "${field}" does not exist in ".${operand.path.join('.')}"`);
        node = next;
      }
    }
  };
  for (const node of nodes) {
    if (node.kind === 'output') check(node.pipeline);
    else if (node.kind === 'if') {
      for (const b of node.branches) {
        check(b.condition);
        checkFields(b.body, shape, dotIsTop);
      }
      checkFields(node.otherwise, shape, dotIsTop);
    } else if (node.kind === 'range') {
      check(node.pipeline);
      checkFields(node.body, shape, false);
      checkFields(node.otherwise, shape, dotIsTop);
    }
  }
}

/** Parses `body`; throws a TemplateError naming the first thing it cannot run. */
export function parseTemplate(body: string, shape: FieldShape = 'any'): Template {
  const parts = lex(body);
  const position = { i: 0 };
  const { nodes } = parseNodes(parts, position, false);
  checkFields(nodes, shape, true);
  return { nodes };
}

function fieldOf(value: unknown, field: string): unknown {
  if (value instanceof GoStruct) {
    if (!(field in value.fields)) throw new TemplateError(`can't evaluate field ${field}`);
    return value.fields[field];
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return Object.hasOwn(value, field) ? (value as Record<string, unknown>)[field] : NO_VALUE;
  }
  if (value === NO_VALUE || value === null || value === undefined)
    throw new TemplateError(`nil value evaluating .${field}`);
  throw new TemplateError(`can't evaluate field ${field} in a ${Array.isArray(value) ? 'list' : typeof value}`);
}

function evalOperand(operand: Operand, dot: unknown, top: unknown): unknown {
  let value = operand.root === 'top' ? top : dot;
  for (const field of operand.path) value = fieldOf(value, field);
  return value;
}

function evalPipeline(pipeline: Pipeline, dot: unknown, top: unknown): unknown {
  let value: unknown = NO_VALUE;
  for (const command of pipeline) {
    if (command.kind === 'operand') value = evalOperand(command.operand, dot, top);
    else value = goJson(command.operand ? evalOperand(command.operand, dot, top) : value);
  }
  return value;
}

function jsonView(value: unknown): unknown {
  if (value === NO_VALUE || value === undefined) return null;
  if (value instanceof GoStruct) return value.json;
  return value;
}

/** encoding/json's text of a value: HTML characters and the JS line separators escaped as Go does. */
export function goJson(value: unknown): string {
  const text = JSON.stringify(jsonView(value), (_key, v) => (v instanceof GoStruct ? v.json : v)) ?? 'null';
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** fmt's %v of a float64: strconv's shortest 'g', whose exponent form starts at 1e+06 and below 1e-04. */
function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, exponentText] = n.toExponential().split('e') as [string, string];
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 6) {
    const abs = Math.abs(exponent);
    return `${mantissa}e${exponent < 0 ? '-' : '+'}${abs < 10 ? `0${abs}` : abs}`;
  }
  return String(n);
}

function goPrint(value: unknown): string {
  if (value === NO_VALUE || value === undefined) return '<no value>';
  if (value === null) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return goFloat(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (value instanceof GoStruct) return `{${Object.values(value.fields).map(goPrint).join(' ')}}`;
  const entries = Object.keys(value as object)
    .sort()
    .map((k) => `${k}:${goPrint((value as Record<string, unknown>)[k])}`);
  return `map[${entries.join(' ')}]`;
}

function truth(value: unknown): boolean {
  if (value === NO_VALUE || value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return value.length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (value instanceof GoStruct) return true;
  return Object.keys(value as object).length > 0;
}

function execute(nodes: readonly Node[], dot: unknown, top: unknown, out: string[]): void {
  for (const node of nodes) {
    switch (node.kind) {
      case 'text':
        out.push(node.text);
        break;
      case 'output':
        out.push(goPrint(evalPipeline(node.pipeline, dot, top)));
        break;
      case 'if': {
        const branch = node.branches.find((b) => truth(evalPipeline(b.condition, dot, top)));
        execute(branch ? branch.body : node.otherwise, dot, top, out);
        break;
      }
      case 'range': {
        const value = evalPipeline(node.pipeline, dot, top);
        let items: unknown[];
        if (value === NO_VALUE || value === null || value === undefined) items = [];
        else if (Array.isArray(value)) items = value;
        else if (typeof value === 'object' && !(value instanceof GoStruct)) {
          items = Object.keys(value)
            .sort()
            .map((k) => (value as Record<string, unknown>)[k]);
        } else throw new TemplateError(`range can't iterate over ${goPrint(value)}`);
        if (items.length === 0) execute(node.otherwise, dot, top, out);
        for (const item of items) execute(node.body, item, top, out);
        break;
      }
    }
  }
}

/** Runs the template on `data`; throws a TemplateError where Go's Execute would return an error. */
export function renderTemplate(template: Template, data: unknown): string {
  const out: string[] = [];
  execute(template.nodes, data, data, out);
  return out.join('');
}
