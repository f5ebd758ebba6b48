/** See bundle-manifest.js. */
/** A bundle's manifest, written last (by rename) when its build is whole. */
export interface BundleManifest {
  format: number;
  /** The build's folder, relative to the bundle folder. */
  build: string;
  /** Every file the bundle was made from, with the size and modification time it had. */
  inputs: Record<string, [size: number, mtimeMs: number]>;
}
export declare const BUNDLE_FORMAT: number;
export declare const MANIFEST: string;
export declare function bundleDirOf(sourceEntry: string): string;
export declare function currentBundle(sourceEntry: string): { entry: string } | { staleBecause: string };
