export declare const SUITES: readonly ["pooled", "moved-clock"];
export type Suite = (typeof SUITES)[number];
/** The suites named on a file's first line, or [] when it names none. Throws on an unknown suite. */
export declare function suitesOf(file: string, text?: string): Suite[];
/** Every `*.test.ts` under root (skipping dependencies, builds and the browser suite), relative to root. */
export declare function testFiles(root: string): string[];
/** The test files under root marked for a suite, relative to root. */
export declare function filesMarked(root: string, suite: Suite): string[];
/** The test files under root that replace a module with `vi.mock` or `vi.doMock`, relative to root. */
export declare function filesMocking(root: string): string[];
