// Derives the props JSON Schema from the source's exported `Props` type (ts-json-schema-generator; JSDoc tags carry constraints).
import { BadRequestError } from '@cp/errors';
import {
  createFormatter,
  createParser,
  DEFAULT_CONFIG,
  SchemaGenerator,
  type CompletedConfig,
} from 'ts-json-schema-generator';
import ts from 'typescript';

const FILE = '/component.ts';

/** No `Props` export means a component without props: an empty object schema. */
const NO_PROPS = { type: 'object', properties: {}, additionalProperties: false };

const COMPILER_OPTIONS: ts.CompilerOptions = {
  noLib: true,
  noResolve: true,
  types: [],
  strict: true,
  skipLibCheck: true,
};

/** An in-memory program over the one source file; without the standard library it takes a few milliseconds. */
function programFor(source: string): ts.Program {
  const host = ts.createCompilerHost(COMPILER_OPTIONS);
  const file = ts.createSourceFile(FILE, source, ts.ScriptTarget.ES2020, true);
  host.getSourceFile = (name) => (name === FILE ? file : undefined);
  host.fileExists = (name) => name === FILE;
  host.readFile = (name) => (name === FILE ? source : undefined);
  host.writeFile = () => undefined;
  return ts.createProgram([FILE], COMPILER_OPTIONS, host);
}

export function derivePropsSchema(source: string): Record<string, unknown> {
  const program = programFor(source);
  const file = program.getSourceFile(FILE)!;
  const exported = file.statements.some(
    (s) =>
      (ts.isInterfaceDeclaration(s) || ts.isTypeAliasDeclaration(s)) &&
      s.name.text === 'Props' &&
      s.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword),
  );
  if (!exported) return { ...NO_PROPS };
  const config: CompletedConfig = {
    ...DEFAULT_CONFIG,
    path: FILE,
    type: 'Props',
    expose: 'none',
    topRef: false,
    jsDoc: 'extended',
    skipTypeCheck: true,
    additionalProperties: false,
  };
  try {
    const generator = new SchemaGenerator(program, createParser(program, config), createFormatter(config), config);
    const { $schema: _ignored, definitions, ...schema } = generator.createSchema('Props') as Record<string, unknown>;
    return definitions && Object.keys(definitions).length > 0 ? { ...schema, definitions } : schema;
  } catch (e) {
    throw new BadRequestError('The Props type cannot be described as JSON Schema.', { content: (e as Error).message });
  }
}
