import type { ChatClient, Model } from '@quantum-chat/client';
import { h } from '../dom.js';

/** `quantum-pro ★ elite`, and `(not on your plan)` when the key's plan lacks it. */
function modelLabel(model: Pick<Model, 'id' | 'requires_plan' | 'available'>): string {
  const plan = model.requires_plan === null ? '' : ` ★ ${model.requires_plan}`;
  return `${model.id}${plan}${model.available === false ? ' (not on your plan)' : ''}`;
}

/**
 * Keeps the model `<select>` in step with `GET /models`: every model, the ones that need a
 * plan marked, and (with a key) the ones the key cannot use. The page's built-in options
 * stay if the list cannot be read.
 */
export function createModelPicker(select: HTMLSelectElement, note: HTMLElement) {
  let models: Model[] = [];

  const describe = () => {
    const model = models.find((candidate) => candidate.id === select.value);
    if (model?.requires_plan) {
      note.textContent = model.available === false ? `Needs the ${model.requires_plan} plan; this key's plan does not include it.` : `Needs the ${model.requires_plan} plan.`;
    } else {
      note.textContent = select.value === 'quantum-reasoner' ? 'Shows its reasoning before the answer.' : '';
    }
  };
  select.addEventListener('change', describe);
  describe();

  return {
    /** Reads the list again (with the key, if any) and keeps the current choice. */
    async refresh(client: ChatClient): Promise<void> {
      try {
        models = (await client.models.list({ maxRetries: 0 })).data;
      } catch {
        // An invalid key is refused here too (401); the chat request will show that error.
        return;
      }
      const chosen = select.value;
      select.replaceChildren(...models.map((model) => h('option', { value: model.id, 'data-requires-plan': model.requires_plan ?? undefined }, modelLabel(model))));
      if (models.some((model) => model.id === chosen)) select.value = chosen;
      describe();
    },
  };
}
