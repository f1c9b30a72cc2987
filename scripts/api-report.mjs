// The public surface of every package, one committed report per barrel (packages/*/src/index.ts and
// apps/*/src/index.ts → <package>/api-report.md): each exported name with its kind and type, sorted,
// one line each, so a change to a public surface shows in review as a changed line.
//
//   node scripts/api-report.mjs            writes the reports   (pnpm api-report)
//   node scripts/api-report.mjs --check    fails, naming the packages, when a report is out of date (CI)
//   node scripts/api-report.mjs --root <dir> [--check]   the same for another checkout (the script's test)
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPORT_FILE = 'api-report.md';
export const REGENERATE_COMMAND = 'pnpm api-report';

/** The package folders that have a barrel, in path order. */
export function packagesWithBarrels(root) {
  return ['packages', 'apps']
    .filter((group) => existsSync(join(root, group)))
    .flatMap((group) =>
      readdirSync(join(root, group))
        .sort()
        .map((name) => join(group, name)),
    )
    .filter((dir) => existsSync(join(root, dir, 'src', 'index.ts')));
}

function compilerOptions(ts, root) {
  const configFile = ['tsconfig.workspace.json', 'tsconfig.base.json']
    .map((f) => join(root, f))
    .find(existsSync);
  const base = { noEmit: true, skipLibCheck: true };
  if (!configFile)
    return { ...base, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler };
  const { config } = ts.readConfigFile(configFile, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent({ ...config, include: [] }, ts.sys, dirname(configFile));
  return { ...parsed.options, ...base };
}

// Declarations are printed from their source (comments and bodies dropped), so a line changes only when its
// declaration does; a type the source leaves to inference is written by the checker, without truncation.
const typeFlags = (ts) =>
  ts.TypeFormatFlags.NoTruncation |
  ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType |
  ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope;
const nodeFlags = (ts) =>
  ts.NodeBuilderFlags.NoTruncation | ts.NodeBuilderFlags.UseSingleQuotesForStringLiteralType;

const oneLine = (text) => text.replace(/\s*\n\s*/g, ' ').replace(/\s+$/, '');

function kindOf(ts, symbol) {
  const f = symbol.flags;
  if (f & ts.SymbolFlags.Class) return 'class';
  if (f & ts.SymbolFlags.Function) return 'function';
  if (f & ts.SymbolFlags.Enum) return 'enum';
  if (f & ts.SymbolFlags.Variable) {
    const list = symbol.valueDeclaration?.parent;
    return list && ts.isVariableDeclarationList(list) && list.flags & ts.NodeFlags.Const ? 'const' : 'let';
  }
  if (f & ts.SymbolFlags.Interface) return 'interface';
  if (f & ts.SymbolFlags.TypeAlias) return 'type';
  if (f & ts.SymbolFlags.Module) return 'namespace';
  return 'unknown';
}

const withoutModifiers = (node, drop) => node.modifiers?.filter((m) => !drop.includes(m.kind)) ?? undefined;
const EXPORT_LIKE = (ts) => [
  ts.SyntaxKind.ExportKeyword,
  ts.SyntaxKind.DefaultKeyword,
  ts.SyntaxKind.DeclareKeyword,
];
const isHidden = (ts, member) =>
  (member.name && ts.isPrivateIdentifier(member.name)) ||
  member.modifiers?.some(
    (m) => m.kind === ts.SyntaxKind.PrivateKeyword || m.kind === ts.SyntaxKind.ProtectedKeyword,
  ) ||
  ts.isClassStaticBlockDeclaration(member);

function returnTypeNode(ts, checker, node) {
  if (node.type) return node.type;
  const signature = checker.getSignatureFromDeclaration(node);
  return signature
    ? checker.typeToTypeNode(checker.getReturnTypeOfSignature(signature), node, nodeFlags(ts))
    : undefined;
}

/** A class as its public shape: heritage, constructor and member signatures, no bodies or initializers. */
function classShape(ts, checker, node) {
  const f = ts.factory;
  const members = node.members
    .filter((member) => !isHidden(ts, member))
    .map((member) => {
      if (ts.isConstructorDeclaration(member))
        return f.updateConstructorDeclaration(member, member.modifiers, member.parameters, undefined);
      if (ts.isMethodDeclaration(member))
        return f.updateMethodDeclaration(
          member,
          member.modifiers,
          member.asteriskToken,
          member.name,
          member.questionToken,
          member.typeParameters,
          member.parameters,
          returnTypeNode(ts, checker, member),
          undefined,
        );
      if (ts.isGetAccessorDeclaration(member))
        return f.updateGetAccessorDeclaration(
          member,
          member.modifiers,
          member.name,
          member.parameters,
          returnTypeNode(ts, checker, member),
          undefined,
        );
      if (ts.isSetAccessorDeclaration(member))
        return f.updateSetAccessorDeclaration(
          member,
          member.modifiers,
          member.name,
          member.parameters,
          undefined,
        );
      if (ts.isPropertyDeclaration(member)) {
        const type =
          member.type ?? checker.typeToTypeNode(checker.getTypeAtLocation(member), member, nodeFlags(ts));
        return f.updatePropertyDeclaration(
          member,
          member.modifiers,
          member.name,
          member.questionToken,
          type,
          undefined,
        );
      }
      return member;
    });
  return f.updateClassDeclaration(
    node,
    withoutModifiers(node, EXPORT_LIKE(ts)),
    node.name,
    node.typeParameters,
    node.heritageClauses,
    members,
  );
}

/** The declaration line of one exported name, written the way a .d.ts would (on one line). */
function describeExport(ts, checker, printer, name, exported) {
  const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
  const kind = kindOf(ts, symbol);
  const declarations = symbol.declarations ?? [];
  const at = symbol.valueDeclaration ?? declarations[0];
  const print = (node) =>
    oneLine(printer.printNode(ts.EmitHint.Unspecified, node, node.getSourceFile?.() ?? at.getSourceFile()));
  const f = ts.factory;
  const renamed = exported.name !== symbol.name ? ` /* as ${name} */` : '';
  if (kind === 'function') {
    const heads = declarations.filter(ts.isFunctionDeclaration);
    // Overloads: the implementation signature is not public when overloads exist.
    const shown = heads.length > 1 ? heads.filter((d) => !d.body) : heads;
    return (
      shown
        .map((d) =>
          print(
            f.updateFunctionDeclaration(
              d,
              withoutModifiers(d, EXPORT_LIKE(ts)),
              d.asteriskToken,
              d.name,
              d.typeParameters,
              d.parameters,
              returnTypeNode(ts, checker, d),
              undefined,
            ),
          ),
        )
        .join(' ') + renamed
    );
  }
  if (kind === 'const' || kind === 'let') {
    const decl = symbol.valueDeclaration;
    const type = decl?.type
      ? print(decl.type)
      : checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, decl), decl, typeFlags(ts));
    return `${kind} ${symbol.name}: ${type};${renamed}`;
  }
  if (kind === 'class')
    return print(classShape(ts, checker, declarations.find(ts.isClassDeclaration))) + renamed;
  if (kind === 'interface' || kind === 'type' || kind === 'enum') {
    return (
      declarations
        .filter(
          (d) => ts.isInterfaceDeclaration(d) || ts.isTypeAliasDeclaration(d) || ts.isEnumDeclaration(d),
        )
        .map((d) => {
          const modifiers = withoutModifiers(d, EXPORT_LIKE(ts));
          if (ts.isInterfaceDeclaration(d))
            return print(
              f.updateInterfaceDeclaration(
                d,
                modifiers,
                d.name,
                d.typeParameters,
                d.heritageClauses,
                d.members,
              ),
            );
          if (ts.isTypeAliasDeclaration(d))
            return print(f.updateTypeAliasDeclaration(d, modifiers, d.name, d.typeParameters, d.type));
          return print(f.updateEnumDeclaration(d, modifiers, d.name, d.members));
        })
        .join(' ') + renamed
    );
  }
  return `${kind} ${symbol.name};${renamed}`;
}

const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Every package's report text, keyed by the report's path relative to root. */
export function buildApiReports(root) {
  const require = createRequire(join(root, 'package.json'));
  const ts = require('typescript');
  const dirs = packagesWithBarrels(root);
  const barrels = dirs.map((dir) => join(root, dir, 'src', 'index.ts'));
  const program = ts.createProgram(barrels, compilerOptions(ts, root));
  const checker = program.getTypeChecker();
  const printer = ts.createPrinter({ removeComments: true, newLine: ts.NewLineKind.LineFeed });
  const reports = new Map();
  dirs.forEach((dir, i) => {
    const source = program.getSourceFile(barrels[i]);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    const exports = moduleSymbol ? [...checker.getExportsOfModule(moduleSymbol)].sort(byName) : [];
    const lines = exports.map((symbol) =>
      // Absolute paths never enter a report: a type named by import("…") is written relative to root.
      describeExport(ts, checker, printer, symbol.name, symbol).replaceAll(`${root}/`, ''),
    );
    const name = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).name ?? dir;
    const text = [
      `# ${name}: public API`,
      '',
      `Generated from \`${dir}/src/index.ts\` by \`${REGENERATE_COMMAND}\`; do not edit by hand. ${exports.length} exported names, sorted.`,
      '',
      '```ts',
      ...lines,
      '```',
      '',
    ].join('\n');
    reports.set(join(dir, REPORT_FILE), text);
  });
  return reports;
}

/** The reports whose committed text differs from the barrels' surface (missing ones included). */
export function staleReports(root, reports = buildApiReports(root)) {
  return [...reports].filter(([path, text]) => {
    const file = join(root, path);
    return !existsSync(file) || readFileSync(file, 'utf8') !== text;
  });
}

function main(argv) {
  const rootAt = argv.indexOf('--root');
  const root = rootAt >= 0 ? argv[rootAt + 1] : join(dirname(fileURLToPath(import.meta.url)), '..');
  const reports = buildApiReports(root);
  if (argv.includes('--check')) {
    const stale = staleReports(root, reports);
    if (stale.length === 0) {
      console.log(`API reports up to date (${reports.size} packages)`);
      return 0;
    }
    console.error(
      `ERROR: the public API of ${stale.length} package(s) differs from its committed report:\n` +
        stale.map(([path]) => `  ${path}\n`).join('') +
        `Run \`${REGENERATE_COMMAND}\` and commit the reports (review the changed lines: they are the change to the public surface).`,
    );
    return 1;
  }
  for (const [path, text] of reports) writeFileSync(join(root, path), text);
  console.log(
    `wrote ${reports.size} API reports: ${[...reports.keys()].map((p) => relative('.', join(root, p))).join(', ')}`,
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
