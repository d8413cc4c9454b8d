#!/usr/bin/env node
// Writes the generated files of deploy/monitoring from their sources:
//  - prometheus-rule.yaml: one PrometheusRule (Prometheus Operator) per rules/*.rules.yaml, holding the file's
//    groups unchanged, comments included (the rules files are the source; plain Prometheus loads them as is);
//  - grafana/*.json: the dashboards built by grafana/dashboards.mjs.
// Both are formatted with the repository's Prettier settings. `node scripts/check-monitoring.mjs` fails when
// the written files differ from what this would write.
//
// Usage: node scripts/gen-monitoring.mjs
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as prettier from 'prettier';
import { Document, isMap, parseDocument } from 'yaml';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MONITORING_DIR = path.join(ROOT, 'deploy', 'monitoring');
export const RULES_DIR = path.join(MONITORING_DIR, 'rules');
export const GRAFANA_DIR = path.join(MONITORING_DIR, 'grafana');
export const PROMETHEUS_RULE_FILE = path.join(MONITORING_DIR, 'prometheus-rule.yaml');

export function listRuleFiles() {
  return readdirSync(RULES_DIR)
    .filter((name) => name.endsWith('.rules.yaml'))
    .sort()
    .map((name) => path.join(RULES_DIR, name));
}

async function format(text, file) {
  const options = (await prettier.resolveConfig(file)) ?? {};
  return prettier.format(text, { ...options, filepath: file });
}

/** The PrometheusRule manifests, one YAML document per rules file, as prometheus-rule.yaml holds them. */
export async function renderPrometheusRules() {
  const documents = listRuleFiles().map((file) => {
    const source = parseDocument(readFileSync(file, 'utf8'));
    if (source.errors.length > 0) throw new Error(`${path.relative(ROOT, file)}: ${source.errors[0].message}`);
    if (!isMap(source.contents)) throw new Error(`${path.relative(ROOT, file)}: not a mapping`);
    const name = `idv-${path.basename(file, '.rules.yaml')}`;
    const manifest = new Document({
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'PrometheusRule',
      metadata: { name, labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': 'monitoring' } },
      spec: null,
    });
    // The rules file's own node (comments and all) becomes the spec: the groups are the same text.
    manifest.contents.set('spec', source.contents);
    manifest.commentBefore = [
      ` Generated from deploy/monitoring/rules/${path.basename(file)} by scripts/gen-monitoring.mjs.`,
      source.commentBefore,
    ]
      .filter(Boolean)
      .join('\n');
    return manifest.toString({ lineWidth: 0 });
  });
  const header =
    '# Prometheus Operator rules: the files of rules/, wrapped. Do not edit: run `node scripts/gen-monitoring.mjs`.\n';
  return format(header + documents.join('---\n'), PROMETHEUS_RULE_FILE);
}

/** The dashboards' JSON texts by file name. */
export async function renderDashboards() {
  const { buildDashboards } = await import(pathToFileURL(path.join(GRAFANA_DIR, 'dashboards.mjs')).href);
  const texts = {};
  for (const [name, model] of Object.entries(buildDashboards())) {
    texts[name] = await format(JSON.stringify(model, null, 2), path.join(GRAFANA_DIR, name));
  }
  return texts;
}

/** Every generated file: absolute path → expected text. */
export async function renderAll() {
  const files = { [PROMETHEUS_RULE_FILE]: await renderPrometheusRules() };
  for (const [name, text] of Object.entries(await renderDashboards())) files[path.join(GRAFANA_DIR, name)] = text;
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [file, text] of Object.entries(await renderAll())) {
    writeFileSync(file, text);
    console.log(`wrote ${path.relative(ROOT, file)}`);
  }
}
