// Fills the generated blocks of a Markdown file: text between BEGIN/END markers is replaced, the rest is kept as written.

const BEGIN = (name: string) => `<!-- BEGIN generated: ${name} (npm run docs; edit the code, not this block) -->`;
const END = (name: string) => `<!-- END generated: ${name} -->`;

/** `text` with every named block's body replaced; throws when a block's markers are missing, so a renamed block fails loudly. */
export function fillBlocks(text: string, blocks: Readonly<Record<string, string>>): string {
  let out = text;
  for (const [name, body] of Object.entries(blocks)) {
    const start = out.indexOf(BEGIN(name));
    const end = out.indexOf(END(name));
    if (start < 0 || end < start) throw new Error(`generated block "${name}" has no BEGIN/END markers`);
    out = `${out.slice(0, start)}${BEGIN(name)}\n${body.trimEnd()}\n${out.slice(end)}`;
  }
  return out;
}
