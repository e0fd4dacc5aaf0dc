// The built-in quality suite: a few dozen deterministic cases covering JSON
// objects, JSON Schema extraction, tool calls (single, a choice among several,
// parallel, irrelevance), length budgets and a number-words canary. Parsed and
// validated exactly like a user's suite file.

export const BUILTIN_SUITE_YAML = `
defaults:
  max_tokens: 128
  temperature: 0
  top_p: 1
  seed: 1234
  stream: false
  repeats: 1

x-tools:
  weather: &weather
    type: function
    function:
      name: get_weather
      description: Current weather for a city.
      parameters:
        type: object
        properties:
          city: { type: string, description: "City name, e.g. Paris" }
          unit: { type: string, enum: [celsius, fahrenheit] }
        required: [city]
        additionalProperties: false
  time: &time
    type: function
    function:
      name: get_time
      description: Current local time in a city.
      parameters:
        type: object
        properties:
          city: { type: string }
        required: [city]
        additionalProperties: false
  email: &email
    type: function
    function:
      name: send_email
      description: Send an email.
      parameters:
        type: object
        properties:
          to: { type: string }
          subject: { type: string }
          body: { type: string }
        required: [to, subject, body]
        additionalProperties: false
  fx: &fx
    type: function
    function:
      name: convert_currency
      description: Convert an amount between currencies.
      parameters:
        type: object
        properties:
          amount: { type: number }
          from: { type: string, minLength: 3, maxLength: 3 }
          to: { type: string, minLength: 3, maxLength: 3 }
        required: [amount, from, to]
        additionalProperties: false

cases:
  # JSON objects under response_format json_object
  - id: json-object-capital
    tags: [json]
    messages: [{ role: user, content: 'Reply with a JSON object {"city": ...} naming the capital of France.' }]
    response_format: { type: json_object }
    expect: [{ kind: json_parse }, { kind: json_path, pointer: /city, equals: Paris }, { kind: max_tokens_respected }]
  - id: json-object-sum
    tags: [json]
    messages: [{ role: user, content: 'Reply with a JSON object {"sum": n} where n is 17 + 25.' }]
    response_format: { type: json_object }
    expect: [{ kind: json_parse }, { kind: json_path, pointer: /sum, equals: 42 }]
  - id: json-object-list
    tags: [json]
    messages: [{ role: user, content: 'Reply with a JSON object {"colors": [...]} listing the three primary colors of light, lowercase.' }]
    response_format: { type: json_object }
    expect: [{ kind: json_parse }, { kind: json_path, pointer: /colors/0, in: [red, green, blue] }]
  - id: json-object-boolean
    tags: [json]
    messages: [{ role: user, content: 'Is 7 a prime number? Reply with a JSON object {"prime": true|false}.' }]
    response_format: { type: json_object }
    stream: both
    expect: [{ kind: json_parse }, { kind: json_path, pointer: /prime, equals: true }, { kind: stream_consistency }]
  - id: json-object-nested
    tags: [json]
    messages: [{ role: user, content: 'Reply with a JSON object {"user": {"name": "Ada", "role": "admin"}} exactly.' }]
    response_format: { type: json_object }
    expect: [{ kind: json_parse }, { kind: json_path, pointer: /user/name, equals: Ada }]

  # JSON Schema extraction under response_format json_schema
  - id: schema-person
    tags: [json, schema]
    messages: [{ role: user, content: "Extract the person: Ada Lovelace was born in 1815 in London." }]
    response_format:
      type: json_schema
      json_schema:
        name: person
        strict: true
        schema:
          type: object
          properties: { name: { type: string }, birth_year: { type: integer }, city: { type: string } }
          required: [name, birth_year, city]
          additionalProperties: false
    expect: [{ kind: json_schema }, { kind: json_path, pointer: /birth_year, equals: 1815 }, { kind: max_tokens_respected }]
  - id: schema-enum
    tags: [json, schema]
    messages: [{ role: user, content: "Classify the sentiment of: I love this phone, the battery lasts forever." }]
    response_format:
      type: json_schema
      json_schema:
        name: sentiment
        strict: true
        schema:
          type: object
          properties: { sentiment: { type: string, enum: [positive, negative, neutral] } }
          required: [sentiment]
          additionalProperties: false
    expect: [{ kind: json_schema }, { kind: json_path, pointer: /sentiment, equals: positive }]
  - id: schema-min-items
    tags: [json, schema]
    messages: [{ role: user, content: "List two European capitals." }]
    response_format:
      type: json_schema
      json_schema:
        name: capitals
        strict: true
        schema:
          type: object
          properties: { capitals: { type: array, items: { type: string }, minItems: 2 } }
          required: [capitals]
          additionalProperties: false
    stream: both
    expect: [{ kind: json_schema }, { kind: stream_consistency }]
  - id: schema-nested
    tags: [json, schema]
    messages: [{ role: user, content: "Extract the order: two apples at 0.5 each, shipped to Berlin." }]
    response_format:
      type: json_schema
      json_schema:
        name: order
        strict: true
        schema:
          type: object
          properties:
            items:
              type: array
              minItems: 1
              items:
                type: object
                properties: { name: { type: string }, quantity: { type: integer }, price: { type: number } }
                required: [name, quantity, price]
                additionalProperties: false
            city: { type: string }
          required: [items, city]
          additionalProperties: false
    expect: [{ kind: json_schema }, { kind: json_path, pointer: /city, equals: Berlin }]
  - id: schema-numbers
    tags: [json, schema]
    messages: [{ role: user, content: "The rectangle is 3 by 4. Give its area and perimeter." }]
    response_format:
      type: json_schema
      json_schema:
        name: rect
        strict: true
        schema:
          type: object
          properties: { area: { type: number }, perimeter: { type: number } }
          required: [area, perimeter]
          additionalProperties: false
    expect: [{ kind: json_schema }, { kind: json_path, pointer: /area, equals: 12 }]
  - id: schema-streamed
    tags: [json, schema, stream]
    messages: [{ role: user, content: "Extract the city and country: The Eiffel Tower is in Paris, France." }]
    response_format:
      type: json_schema
      json_schema:
        name: place
        strict: true
        schema:
          type: object
          properties: { city: { type: string }, country: { type: string } }
          required: [city, country]
          additionalProperties: false
    stream: true
    expect: [{ kind: json_schema }, { kind: json_path, pointer: /city, equals: Paris }]

  # Tool calls: one tool, forced
  - id: tool-required-weather
    tags: [tools]
    messages: [{ role: user, content: "What is the weather in Paris right now?" }]
    tools: [*weather]
    tool_choice: required
    expect: [{ kind: tool_call, calls: [{ name: get_weather, arguments: { city: [Paris, "Paris, France"], unit: [celsius, fahrenheit, ""] } }] }]
  - id: tool-named-weather
    tags: [tools]
    messages: [{ role: user, content: "Check the weather for Oslo." }]
    tools: [*weather, *time]
    tool_choice: { type: function, function: { name: get_weather } }
    expect: [{ kind: tool_call, calls: [{ name: get_weather, arguments: { city: Oslo, unit: [celsius, fahrenheit, ""] } }] }]
  - id: tool-required-streamed
    tags: [tools, stream]
    messages: [{ role: user, content: "How warm is it in Madrid today?" }]
    tools: [*weather]
    tool_choice: required
    stream: both
    expect: [{ kind: tool_call, calls: [{ name: get_weather, arguments: { city: Madrid, unit: [celsius, fahrenheit, ""] } }] }, { kind: stream_consistency }]
  - id: tool-required-currency
    tags: [tools]
    messages: [{ role: user, content: "Convert 100 USD to EUR." }]
    tools: [*fx]
    tool_choice: required
    expect: [{ kind: tool_call, calls: [{ name: convert_currency, arguments: { amount: 100, from: USD, to: EUR } }] }]
  - id: tool-required-email
    tags: [tools]
    messages: [{ role: user, content: "Email bob@example.com with subject Lunch and body: See you at noon." }]
    tools: [*email]
    tool_choice: required
    expect: [{ kind: tool_call, calls: [{ name: send_email, arguments: { to: bob@example.com, subject: Lunch } }] }]

  # Tool calls: the right one among several, chosen by the model
  - id: tool-choice-time
    tags: [tools, choice]
    messages: [{ role: user, content: "What time is it in Tokyo?" }]
    tools: [*weather, *time, *email]
    tool_choice: auto
    expect: [{ kind: tool_call, calls: [{ name: get_time, arguments: { city: Tokyo } }] }]
  - id: tool-choice-weather
    tags: [tools, choice]
    messages: [{ role: user, content: "Do I need an umbrella in London today?" }]
    tools: [*weather, *time, *email]
    tool_choice: auto
    expect: [{ kind: tool_call, calls: [{ name: get_weather, arguments: { city: London, unit: [celsius, fahrenheit, ""] } }] }]
  - id: tool-choice-currency
    tags: [tools, choice]
    messages: [{ role: user, content: "How many Japanese yen is 50 euros?" }]
    tools: [*weather, *fx, *email]
    tool_choice: auto
    expect: [{ kind: tool_call, calls: [{ name: convert_currency, arguments: { amount: 50, from: EUR, to: JPY } }] }]
  - id: tool-choice-streamed
    tags: [tools, choice, stream]
    messages: [{ role: user, content: "What's the local time in Sydney?" }]
    tools: [*weather, *time]
    tool_choice: auto
    stream: true
    expect: [{ kind: tool_call, calls: [{ name: get_time, arguments: { city: Sydney } }] }]

  # Tool calls: parallel
  - id: tool-parallel-weather
    tags: [tools, parallel]
    messages: [{ role: user, content: "What is the weather in Paris and in Rome? Call the tool once per city." }]
    tools: [*weather]
    tool_choice: auto
    expect:
      - kind: tool_call
        min_calls: 2
        max_calls: 2
        calls:
          - { name: get_weather, arguments: { city: Paris, unit: [celsius, fahrenheit, ""] } }
          - { name: get_weather, arguments: { city: Rome, unit: [celsius, fahrenheit, ""] } }
  - id: tool-parallel-mixed
    tags: [tools, parallel]
    messages: [{ role: user, content: "Give me the weather and the local time in Berlin." }]
    tools: [*weather, *time]
    tool_choice: auto
    expect:
      - kind: tool_call
        min_calls: 2
        calls: [{ name: get_weather, arguments: { city: Berlin, unit: [celsius, fahrenheit, ""] } }, { name: get_time, arguments: { city: Berlin } }]

  # Tool calls: none needed
  - id: tool-irrelevant-joke
    tags: [tools, irrelevance]
    messages: [{ role: user, content: "Tell me a one-line joke about cats." }]
    tools: [*weather, *time]
    tool_choice: auto
    expect: [{ kind: no_tool_call }, { kind: finish_reason, allowed: [stop, length] }]
  - id: tool-irrelevant-math
    tags: [tools, irrelevance]
    messages: [{ role: user, content: "What is 12 times 12? Answer with the number only." }]
    tools: [*weather, *email]
    tool_choice: auto
    expect: [{ kind: no_tool_call }, { kind: contains, values: ["144"] }]
  - id: tool-irrelevant-greeting
    tags: [tools, irrelevance]
    messages: [{ role: user, content: "hello there" }]
    tools: [*weather]
    tool_choice: auto
    stream: both
    expect: [{ kind: no_tool_call }, { kind: stream_consistency }]
  - id: tool-none-choice
    tags: [tools, irrelevance]
    messages: [{ role: user, content: "What is the weather in Paris? Answer from memory, in one sentence." }]
    tools: [*weather]
    tool_choice: none
    expect: [{ kind: no_tool_call }]

  # Length budgets
  - id: length-five-words
    tags: [length]
    messages: [{ role: user, content: "Describe the sea in at most five words." }]
    max_tokens: 16
    expect: [{ kind: max_tokens_respected }, { kind: length, max_chars: 80 }]
  - id: length-haiku
    tags: [length]
    messages: [{ role: user, content: "Write a haiku about autumn." }]
    max_tokens: 64
    expect: [{ kind: max_tokens_respected }, { kind: length, min_chars: 10, not_truncated: true }]
  - id: length-tiny-budget
    tags: [length]
    messages: [{ role: user, content: "Write a long essay about the history of Rome." }]
    max_tokens: 8
    stream: both
    expect: [{ kind: max_tokens_respected }, { kind: finish_reason, allowed: [length] }]
  - id: length-one-word
    tags: [length]
    messages: [{ role: user, content: "Name the largest planet. One word." }]
    max_tokens: 8
    expect: [{ kind: max_tokens_respected }, { kind: equals, value: Jupiter, normalize: true }]

  # Number-words canary: garbled or empty output from a broken build shows here first
  - id: canary-seven
    tags: [canary]
    messages: [{ role: user, content: "Spell the number 7 as an English word. Reply with the word only." }]
    max_tokens: 8
    expect: [{ kind: equals, value: seven, normalize: true }]
  - id: canary-twelve
    tags: [canary]
    messages: [{ role: user, content: "Spell the number 12 as an English word. Reply with the word only." }]
    max_tokens: 8
    stream: true
    expect: [{ kind: equals, value: twelve, normalize: true }]
  - id: canary-count
    tags: [canary]
    messages: [{ role: user, content: "Count from one to five in English words, separated by spaces." }]
    max_tokens: 16
    expect: [{ kind: regex, pattern: "^one two three four five\\\\.?$", flags: i }]
`;
