// What the change streams send, for every transport: OFREP's refetchEvaluation message (ADR 0008)
// for a namespace's new revision. The text is made once per change and shared by every stream of the
// namespace, so a change costs one string however many clients listen.

import type { RevisionChange } from '../cache/revision-watch.js';

const dataText = new WeakMap<RevisionChange, string>();
const frameText = new WeakMap<RevisionChange, string>();

/** `{"type":"refetchEvaluation","etag":…,"lastModified":…}`: etag is the revision tag (X-Vexil-Revision). */
export function changeData(change: RevisionChange): string {
  let text = dataText.get(change);
  if (text === undefined) {
    text = JSON.stringify({ type: 'refetchEvaluation', etag: change.revision, lastModified: change.lastModified });
    dataText.set(change, text);
  }
  return text;
}

/**
 * The server-sent event of a change: `event: message` (OFREP uses no named events) and the revision
 * as its id, so a client that reconnects names the last revision it was told of (Last-Event-ID).
 */
export function changeFrame(change: RevisionChange): string {
  let text = frameText.get(change);
  if (text === undefined) {
    text = `id: ${change.revision}\nevent: message\ndata: ${changeData(change)}\n\n`;
    frameText.set(change, text);
  }
  return text;
}
