/** Builds the web app into `outDirectory` (default dist/web); returns the folder. */
export function buildWebApp(outDirectory?: string, options?: { minify?: boolean; sourcemap?: boolean }): Promise<string>;
