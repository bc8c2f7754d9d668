// The template subset against what Go's text/template prints for the same template and data (the
// expected outputs follow Go's rules: fmt's %v, "<no value>" for a missing map key, encoding/json's
// HTML escaping under toJson), and the refusals of everything outside the subset.

import { describe, expect, it } from 'vitest';
import { type AuditEvent, EVENT_FIELDS, templateDataOf } from './events.js';
import { GoStruct, goJson, parseTemplate, renderTemplate, TemplateError } from './go-template.js';

const event: AuditEvent = {
  version: '0.2',
  type: 'flag',
  action: 'created',
  metadata: { actor: { authentication: 'token', ip: '10.0.0.1', name: 'ci' } },
  payload: {
    key: 'dark-mode',
    name: 'Dark <mode> & more',
    enabled: true,
    namespace_key: 'default',
    rank: 1000000,
    ratio: 0.5,
    tags: ['a', 'b'],
    nested: { z: 1, a: 'x' },
    empty: '',
    nothing: null,
  },
  timestamp: '2026-11-27T12:00:00Z',
  status: 'success',
};

function render(body: string, data: unknown = templateDataOf(event)): string {
  return renderTemplate(parseTemplate(body, EVENT_FIELDS), data);
}

describe('go template: rendering', () => {
  it.each([
    ['text only', 'plain {}', 'plain {}'],
    [
      'top-level fields',
      '{{ .Type }}:{{ .Action }} {{.Version}} {{ .Status }} {{ .Timestamp }}',
      'flag:created 0.2 success 2026-11-27T12:00:00Z',
    ],
    [
      'actor fields by Go names',
      '{{ .Metadata.Actor.Authentication }} {{ .Metadata.Actor.IP }} [{{ .Metadata.Actor.Email }}]',
      'token 10.0.0.1 []',
    ],
    ["the actor's role (Vexil's field): empty for an actor without roles", '[{{ .Metadata.Actor.Role }}]', '[]'],
    ['payload keys', '{{ .Payload.key }} {{ .Payload.enabled }}', 'dark-mode true'],
    ['a missing payload key', '{{ .Payload.nope }}', '<no value>'],
    ['a null payload value', '{{ .Payload.nothing }}', '<nil>'],
    ['numbers as fmt %v', '{{ .Payload.rank }} {{ .Payload.ratio }}', '1e+06 0.5'],
    ['lists and maps as fmt %v', '{{ .Payload.tags }} {{ .Payload.nested }}', '[a b] map[a:x z:1]'],
    ['toJson of the payload', '{{ toJson .Payload.nested }}', '{"z":1,"a":"x"}'],
    ['toJson escapes HTML as Go', '{{ toJson .Payload.name }}', '"Dark \\u003cmode\\u003e \\u0026 more"'],
    ['toJson in a pipe', '{{ .Payload.tags | toJson }}', '["a","b"]'],
    [
      'toJson of a struct uses json names',
      '{{ toJson .Metadata }}',
      '{"actor":{"authentication":"token","ip":"10.0.0.1","name":"ci"}}',
    ],
    ['toJson of a missing key', '{{ toJson .Payload.nope }}', 'null'],
    ['if true', '{{ if .Payload.enabled }}on{{ end }}', 'on'],
    ['if empty string is false', '{{ if .Payload.empty }}yes{{ else }}no{{ end }}', 'no'],
    [
      'else if',
      '{{ if .Payload.empty }}1{{ else if .Payload.nope }}2{{ else if .Payload.key }}3{{ else }}4{{ end }}',
      '3',
    ],
    ['range over a list', '{{ range .Payload.tags }}<{{ . }}>{{ end }}', '<a><b>'],
    ['range over a map, keys sorted', '{{ range .Payload.nested }}{{ . }};{{ end }}', 'x;1;'],
    ['range else on nothing', '{{ range .Payload.nope }}x{{ else }}none{{ end }}', 'none'],
    ['$ inside range', '{{ range .Payload.tags }}{{ $.Type }}-{{ . }} {{ end }}', 'flag-a flag-b '],
    ['trim markers', 'a  {{- .Type -}}  \n b', 'aflagb'],
    ['comments', 'x{{/* a comment */}}y', 'xy'],
    [
      'a Flipt Slack body',
      '{"text": "{{ .Type }} {{ .Action }} by {{ .Metadata.Actor.IP }}", "p": {{ toJson .Payload.tags }}}',
      '{"text": "flag created by 10.0.0.1", "p": ["a","b"]}',
    ],
  ])('%s', (_name, body, expected) => {
    expect(render(body)).toBe(expected);
  });

  it("names the role of an actor with roles, and toJson shows it among the actor's fields", () => {
    const withRole = templateDataOf({ ...event, metadata: { actor: { ...event.metadata.actor, role: 'editor' } } });
    expect(render('{{ .Metadata.Actor.Role }}', withRole)).toBe('editor');
    expect(render('{{ toJson .Metadata.Actor }}', withRole)).toBe(
      '{"authentication":"token","ip":"10.0.0.1","name":"ci","role":"editor"}',
    );
  });

  it('prints numbers as Go float64 %v does', () => {
    const cases: [number, string][] = [
      [50, '50'],
      [33.33, '33.33'],
      [123456, '123456'],
      [1234567, '1.234567e+06'],
      [0.0001, '0.0001'],
      [0.00001, '1e-05'],
      [-2.5, '-2.5'],
    ];
    for (const [n, text] of cases) expect(render('{{ .Payload.n }}', new GoStruct({ Payload: { n } }, {}))).toBe(text);
  });

  it('fails at run time where Go fails: a field of a string inside range', () => {
    const template = parseTemplate('{{ range .Payload.tags }}{{ .x }}{{ end }}', EVENT_FIELDS);
    expect(() => renderTemplate(template, templateDataOf(event))).toThrow(TemplateError);
  });

  it('encodes JSON as encoding/json does', () => {
    expect(goJson({ a: '<&>\u2028', b: [1, 2.5], c: null })).toBe(
      '{"a":"\\u003c\\u0026\\u003e\\u2028","b":[1,2.5],"c":null}',
    );
  });
});

describe('go template: refusals at parse time', () => {
  it.each([
    ['another function', '{{ printf "%s" .Type }}', '"printf"'],
    ['eq', '{{ if eq .Type "flag" }}x{{ end }}', '"eq"'],
    ['variables', '{{ $x := .Type }}{{ $x }}', '"$x"'],
    ['with', '{{ with .Payload }}x{{ end }}', '"with"'],
    ['a string literal', '{{ "text" }}', 'is not supported'],
    ['define', '{{ define "x" }}y{{ end }}', '"define"'],
    ['an unknown event field', '{{ .Nope }}', 'field "Nope"'],
    ['an unknown actor field', '{{ .Metadata.Actor.Ip }}', 'field "Ip"'],
    ['a field of a string', '{{ .Type.Key }}', 'field "Key"'],
    ['an unclosed action', '{{ .Type ', 'unclosed action'],
    ['if without end', '{{ if .Type }}x', 'has no end'],
    ['end without if', 'x{{ end }}', 'unexpected "end"'],
    ['an empty action', '{{ }}', 'empty action'],
    ['a pipe into something else', '{{ .Type | printf }}', '"printf"'],
  ])('%s', (_name, body, message) => {
    expect(() => parseTemplate(body, EVENT_FIELDS)).toThrow(TemplateError);
    expect(() => parseTemplate(body, EVENT_FIELDS)).toThrow(message);
  });
});
