import type { ResponseLogprob, ResponseObject, ResponseOutputItem } from './response-object.js';

/** Fields every stream event has. */
interface EventBase<Type extends string> {
  type: Type;
  sequence_number: number;
}

interface ItemEventBase<Type extends string> extends EventBase<Type> {
  item_id: string;
  output_index: number;
}

/** The events of a Responses stream that this package writes and reads (decisions §10). */
export type ResponseStreamEvent =
  | (EventBase<'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed' | 'response.queued'> & {
      response: ResponseObject;
    })
  | (EventBase<'response.output_item.added' | 'response.output_item.done'> & { output_index: number; item: ResponseOutputItem })
  | (ItemEventBase<'response.content_part.added' | 'response.content_part.done'> & {
      content_index: number;
      part: { type: string; text?: string; annotations?: unknown[]; logprobs?: ResponseLogprob[] };
    })
  | (ItemEventBase<'response.output_text.delta'> & { content_index: number; delta: string; logprobs?: ResponseLogprob[] })
  | (ItemEventBase<'response.output_text.done'> & { content_index: number; text: string; logprobs?: ResponseLogprob[] })
  | (ItemEventBase<'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done'> & {
      summary_index: number;
      part: { type: 'summary_text'; text: string };
    })
  | (ItemEventBase<'response.reasoning_summary_text.delta'> & { summary_index: number; delta: string })
  | (ItemEventBase<'response.reasoning_summary_text.done'> & { summary_index: number; text: string })
  | (ItemEventBase<'response.reasoning_text.delta'> & { content_index: number; delta: string })
  | (ItemEventBase<'response.reasoning_text.done'> & { content_index: number; text: string })
  | (ItemEventBase<'response.function_call_arguments.delta'> & { delta: string })
  | (ItemEventBase<'response.function_call_arguments.done'> & { name?: string; arguments: string })
  | (EventBase<'error'> & { code: string | null; message: string; param: string | null });

export type ResponseStreamEventType = ResponseStreamEvent['type'];
