// Every generated doc: which file, and how its generated blocks are rendered from the code.
import { fillBlocks } from './generated-blocks';
import { staffGuideBlocks } from './staff-guide-doc';
import { statesBlocks } from './states-doc';
import { triageBlocks } from './triage-doc';

export interface GeneratedDoc {
  /** Relative to the repository root. */
  path: string;
  render(current: string): string;
}

export const GENERATED_DOCS: readonly GeneratedDoc[] = [
  { path: 'docs/states.md', render: (current) => fillBlocks(current, statesBlocks()) },
  { path: 'docs/triage.md', render: (current) => fillBlocks(current, triageBlocks()) },
  { path: 'docs/staff-guide.md', render: (current) => fillBlocks(current, staffGuideBlocks()) },
];
