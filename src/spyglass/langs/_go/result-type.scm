; Shared by the Go definition patterns of functions, methods and interface methods: not a
; pattern by itself but their `result:` field (the first result type as @base; a slice
; result stands for its element type).
  result: [(type_identifier) @base (qualified_type) @base
           (pointer_type [(type_identifier) (qualified_type)] @base)
           (slice_type element: [(type_identifier) @base (qualified_type) @base
                                 (pointer_type [(type_identifier) (qualified_type)] @base)])
           (parameter_list . (parameter_declaration type: [(type_identifier) @base (qualified_type) @base
             (pointer_type [(type_identifier) (qualified_type)] @base)
             (slice_type element: [(type_identifier) @base (qualified_type) @base
                                   (pointer_type [(type_identifier) (qualified_type)] @base)])]))]
