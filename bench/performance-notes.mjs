// The prose of docs/performance.md that explains the design changes the figures pointed at (kept beside the bench that measures them).

export function designNotes() {
  return [
    '## What the figures changed',
    '',
    '_To be written from the runs below._',
    '',
  ];
}
