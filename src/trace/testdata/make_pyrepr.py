"""Write pyrepr.txt: Python `repr` of dicts (as the openai-agents-v2 0.1.0
instrumentation writes a ChatCompletionMessage into `gen_ai.output.messages`)
and the same value as `json.dumps`, one pair of lines each, for the tests of
src/trace/pyrepr.rs. Run: python3 make_pyrepr.py > pyrepr.txt"""
import json

CASES = [
    {'content': None, 'refusal': None, 'role': 'assistant', 'annotations': None, 'audio': None,
     'function_call': None,
     'tool_calls': [{'id': 'call_1_0', 'function': {'arguments': '{}', 'name': 'transfer_to_weather_agent'},
                     'type': 'function'}]},
    {'content': 'Checking.', 'role': 'assistant',
     'tool_calls': [{'id': 'c2', 'function': {'arguments': '{"city": "Paris", "note": "it\'s \\"x\\""}',
                                              'name': 'get_weather'}, 'type': 'function'}]},
    {'s': "it's", 'd': 'say "hi"', 'both': 'it\'s "x"', 'esc': 'a\\b\nc\td\r\x00\x7f\x85',
     'u': 'caf\u00e9 \u200e \U0001f600 \ud7ff \U0010ffff', 'n': [1, -2, 3.5, 1e100, -0.0, 12345678901234567890, True, False, None],
     't': (1, 'two'), 'one': (3,), 'e': {}, 'l': [], 'nested': [[[{'k': ()}]]]},
]

for case in CASES:
    print(repr(case))
    print(json.dumps(case, ensure_ascii=False))
