/**
 * The closing note of a vitest run: every block that did not run on this machine, and why (the reason its file
 * recorded with `notRunWhen` or `ctx.skip(true, why)`), so a green run says what it did not prove. A block skipped
 * with no reason is named too, as such. The last thing printed (a console line inside a test file scrolls away).
 * When the run was narrowed by a name filter, only blocks with a reason are named.
 */
import type { Reporter, TestCase, TestModule, TestSuite, Vitest } from 'vitest/node';
import { relative } from 'node:path';

type Block = TestCase | TestSuite;

function reasonOf(test: TestCase): { why: string | undefined; block: Block } {
  const result = test.result();
  const note = result.state === 'skipped' ? result.note : undefined;
  if (note) return { why: note, block: test };
  const why = test.meta().notRun;
  if (!why) return { why: undefined, block: test };
  // A suite's metadata is its tests' too: name the outermost block that gave the reason.
  let block: Block = test;
  while (block.parent.type === 'suite' && block.parent.meta().notRun === why) block = block.parent;
  return { why, block };
}

export default class NotRunReporter implements Reporter {
  private narrowed = false;
  private root = process.cwd();

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
    this.narrowed = !!vitest.config.testNamePattern;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines = new Map<string, { why: string; count: number }>();
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state !== 'skipped' || test.options.mode === 'todo') continue;
        const { why, block } = reasonOf(test);
        if (!why && this.narrowed) continue;
        const key = `${relative(this.root, module.moduleId)} › ${block.type === 'suite' ? block.fullName : test.fullName}`;
        const line = lines.get(key) ?? { why: why ?? 'skipped, no reason given', count: 0 };
        line.count += 1;
        lines.set(key, line);
      }
    }
    if (!lines.size) return;
    const items = [...lines].sort(([a], [b]) => a.localeCompare(b)).map(([key, { why, count }]) => `  - ${key}${count > 1 ? ` (${count} tests)` : ''}: ${why}`);
    process.stderr.write(`\nNot run on this machine (${lines.size}):\n${items.join('\n')}\n`);
  }
}
