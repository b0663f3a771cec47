parameters { while  }
