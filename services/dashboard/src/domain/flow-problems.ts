import { FlowConfigSchema } from '@idv/contracts';

/** The schema's problems, by the path of the input they belong to (`steps.0.id`), the first per path. */
export function problemsOf(config: unknown): Map<string, string> {
  const problems = new Map<string, string>();
  const checked = FlowConfigSchema.safeParse(config);
  if (checked.success) return problems;
  for (const issue of checked.error.issues) {
    const path = issue.path.map(String).join('.') || '(root)';
    if (!problems.has(path)) problems.set(path, issue.message);
  }
  return problems;
}
