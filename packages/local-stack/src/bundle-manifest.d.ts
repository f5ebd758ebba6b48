/** See bundle-manifest.js. */
export declare const BUNDLE_FORMAT: number;
export declare const MANIFEST: string;
export declare function bundleDirOf(sourceEntry: string): string;
export declare function currentBundle(sourceEntry: string): { entry: string } | { staleBecause: string };
