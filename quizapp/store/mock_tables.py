"""Tables of the mock-interview history (mock_session, mock_item); filled in by the mock issue."""
