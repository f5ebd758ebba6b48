/**
 * Strict offline validation: every field of every rendered object must be one the Kubernetes API
 * knows. kubernetes-models' validators (schemas.ts) check types, required fields and formats but
 * let unknown fields through, so a misspelled optional field (`readinesProbe`) would pass. Its
 * TypeScript interfaces, though, list exactly the API's fields, and TypeScript refuses excess
 * properties in an object literal: each object is type-checked as a literal of its kind's
 * interface, which is kubeconform's `-strict` without a binary or a network.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { K8sObject } from './kustomize.ts';

// Beside the tests, so the checked file resolves kubernetes-models from deploy/node_modules.
const checkedFile = path.join(path.dirname(fileURLToPath(import.meta.url)), '__rendered-objects__.ts');

/** `networking.k8s.io/v1` + NetworkPolicy → kubernetes-models/networking.k8s.io/v1/NetworkPolicy. */
const moduleOf = (object: K8sObject) => `kubernetes-models/${object.apiVersion}/${object.kind}`;

/** One line per unknown or mistyped field, naming the object; empty when every object is clean. */
export function strictSchemaProblems(objects: K8sObject[]): string[] {
  const lines: string[] = [];
  const owners: Array<{ firstLine: number; id: string }> = [];
  objects.forEach((object, index) => {
    owners.push({ firstLine: lines.length, id: `${object.kind} ${object.metadata?.name}` });
    lines.push(`import type { I${object.kind} as Kind${index} } from '${moduleOf(object)}';`);
    lines.push(
      ...`export const object${index}: Kind${index} = ${JSON.stringify(object, null, 2)};`.split('\n'),
    );
  });
  const source = lines.join('\n');

  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile;
  const getSourceFile = host.getSourceFile;
  host.fileExists = (file) => file === checkedFile || ts.sys.fileExists(file);
  host.readFile = (file) => (file === checkedFile ? source : readFile.call(host, file));
  host.getSourceFile = (file, language, ...rest) =>
    file === checkedFile
      ? ts.createSourceFile(file, source, language, true)
      : getSourceFile.call(host, file, language, ...rest);
  const program = ts.createProgram([checkedFile], options, host);

  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === checkedFile)
    .map((diagnostic) => {
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      const owner = owners.findLast((candidate) => candidate.firstLine <= line);
      const field = source.split('\n')[line]?.trim() ?? '';
      // The literal's keys are JSON strings: '"readinesProbe"' reads better as 'readinesProbe'.
      const message = ts
        .flattenDiagnosticMessageText(diagnostic.messageText, ' ')
        .replace(/'"([^"']+)"'/g, "'$1'");
      return `${owner?.id ?? 'unknown object'}: ${message} (at ${field})`;
    });
}
