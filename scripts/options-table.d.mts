/** Types of scripts/options-table.mjs (the README options-table generator). */
export declare const START_MARKER: string;
export declare const END_MARKER: string;
/** The options table (Markdown) from the identity module's defaults and bounds and the JSDoc in `sourceDir`. */
export declare function identityOptionsTable(identity: Record<string, unknown>, sourceDir?: string): string;
/** Markdown formatted with the repository's Prettier configuration. */
export declare function formatMarkdown(markdown: string): Promise<string>;
/** The README with the region between the markers replaced by `table`. */
export declare function replaceOptionsRegion(readme: string, table: string): string;
/** The region between the markers as it is in the README (trimmed). */
export declare function optionsRegion(readme: string): string;
/** Rewrites the README's options region from `identity`; true when it changed. */
export declare function regenerateReadme(identity: Record<string, unknown>, readmePath?: string): Promise<boolean>;
/** Options whose JSDoc `@default` disagrees with the default resolution applies. */
export declare function defaultTagMismatches(
  identity: Record<string, unknown>,
  sourceDir?: string,
): { option: string; tag: string; value: string }[];
