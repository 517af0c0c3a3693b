"""Lesson 11: find the bugs. A Monte Carlo Tree Search in one page, in the style of a
textbook listing, for any mctslab two-player game (tic-tac-toe first). It plays, but
badly: it has two classic bugs. Find them, fix them, and check your fix with the
autograder:

    mctslab grade lessons/find_the_bugs.py

The autograder calls ``mcts(state, iterations)`` on tic-tac-toe positions it knows the
answers to, and on a probe, and names the kind of bug it sees.
"""

import math
import random


class Node:
    def __init__(self, state, parent=None, move=None):
        self.parent = parent
        self.move = move
        self.to_move = state.current_player()  # who moves from here
        self.player = self.to_move  # whose wins this node counts
        self.children = []
        self.untried = [] if state.is_terminal() else list(state.legal_actions())
        self.visits = 0
        self.wins = 0.0

    def ucb(self, c=math.sqrt(2)):
        return self.wins / self.visits + c * math.sqrt(2 * math.log(self.parent.visits) / self.visits)


def mcts(state, iterations):
    root = Node(state)
    for _ in range(iterations):
        node, position = root, state.clone()
        # Selection
        while not node.untried and node.children:
            node = max(node.children, key=lambda child: child.ucb())
            position.apply_action(node.move)
        # Expansion
        if node.untried:
            move = random.choice(node.untried)
            node.untried.remove(move)
            position.apply_action(move)
            child = Node(position, node, move)
            node.children.append(child)
            node = child
        # Simulation
        while not position.is_terminal():
            position.apply_action(random.choice(position.legal_actions()))
        returns = position.returns()
        # Backpropagation
        while node is not None:
            node.visits += 1
            if node.player >= 0:
                node.wins += (returns[node.player] + 1) / 2
            node = node.parent
    return max(root.children, key=lambda child: child.visits).move
