// The generated part of docs/staff-guide.md: what to do with a row that needs a person, per reason, from the words the triage mail uses.
import { NEEDS_PERSON_GUIDE, NEEDS_PERSON_REASONS } from '../../src/core/triage/needs-person';

export function needsPersonSteps(): string {
  const rows = NEEDS_PERSON_REASONS.map((reason) => {
    const guide = NEEDS_PERSON_GUIDE[reason];
    return `| ${guide.when} | ${guide.label} | ${guide.step.replace(/\|/g, '\\|')} |`;
  });
  return ['| the row | the mail says | what you do |', '|---|---|---|', ...rows].join('\n');
}

export function staffGuideBlocks(): Record<string, string> {
  return { 'needs-person-steps': needsPersonSteps() };
}
