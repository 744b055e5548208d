#!/usr/bin/env python3
"""Fill or list the fields of a PDF form (fixture for skill tests)."""
import sys

if __name__ == "__main__":
    print("fields:", sys.argv[1:])
