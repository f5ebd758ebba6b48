/** See compile-cache.js. */
export declare function compileCacheDir(): string;
