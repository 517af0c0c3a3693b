"""Teaching aids for the lessons (lessons/): what the course shows that the engines do not
need, kept out of their defaults: a bandit simulator and UCB with raw rewards and any
logarithm."""
